import type { Tool as McpTool } from '@modelcontextprotocol/server';
import { PAGE_TOOLS_META, UNTRUSTED_NOTE, type PageToolInfo, type ToolResult } from '@browsermcp/tools';

/** Where a `webmcp_<name>` tool goes: browser_webmcp_call with the page's name, in its frame. */
export interface PageToolRoute {
  name: string;
  frame?: string | undefined;
}

/**
 * A session's current page's own tools (WebMCP), offered to its MCP client as tools of their own (`webmcp_<name>`, as
 * @playwright/mcp names them), with a tools/list_changed notification when they change. Their words are the page's:
 * each description says so first.
 */
export class PageTools {
  private tools: McpTool[] = [];
  private readonly routes = new Map<string, PageToolRoute>();

  list(): McpTool[] {
    return this.tools;
  }

  route(name: string): PageToolRoute | undefined {
    return this.routes.get(name);
  }

  /** Takes a result's report of the page's tools (and removes it from the answer); true when the list changed. */
  take(result: ToolResult): boolean {
    const infos = takePageTools(result);
    if (infos === undefined) return false;
    this.routes.clear();
    this.tools = infos.map((info) => {
      const base = `webmcp_${info.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 56) || 'tool'}`;
      let name = base;
      for (let i = 2; this.routes.has(name); i++) name = `${base}_${i}`;
      this.routes.set(name, { name: info.name, ...(info.frame !== undefined ? { frame: info.frame } : {}) });
      return toMcpTool(name, info);
    });
    return true;
  }
}

/** The page's tools a result reports, taken out of it (the model never sees the report itself). */
export function takePageTools(result: ToolResult): PageToolInfo[] | undefined {
  const meta = result._meta;
  if (!meta || !(PAGE_TOOLS_META in meta)) return undefined;
  const { [PAGE_TOOLS_META]: infos, ...rest } = meta;
  if (Object.keys(rest).length) result._meta = rest;
  else delete result._meta;
  return Array.isArray(infos) ? (infos as PageToolInfo[]) : [];
}

function toMcpTool(name: string, info: PageToolInfo): McpTool {
  const hints = [
    `[WebMCP tool of the current page: ${UNTRUSTED_NOTE}.]`,
    info.annotations?.consequential ? '[CONSEQUENTIAL: may take a real action, such as placing an order. Confirm with the user first.]' : '',
    info.annotations?.readOnly ? '[The page says it only reads; nothing checks that.]' : '',
    info.frame !== undefined ? `[Registered by the frame ${info.frame}.]` : '',
  ].filter(Boolean);
  const schema = info.inputSchema;
  const inputSchema =
    schema && typeof schema === 'object' && !Array.isArray(schema) && (schema as { type?: unknown }).type === 'object'
      ? (schema as McpTool['inputSchema'])
      : { type: 'object' as const };
  // The title is the page's words too, and shown where a client asks its user to approve a call: marked as such. The
  // page's own hints are never promoted into MCP's: a client auto-approves a read-only, non-destructive tool.
  const title = `Page tool (untrusted): ${info.title ?? info.name}`;
  return {
    name,
    title,
    description: `${hints.join(' ')} ${info.description}`,
    inputSchema,
    annotations: { title, readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  };
}
