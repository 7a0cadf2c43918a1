import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Dialect } from './servers.js';

interface ToolResult {
  content?: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

export class ToolError extends Error {}

/** The text a model receives from a tool call (every text part). */
export function textOf(result: ToolResult): string {
  return (result.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('\n');
}

/**
 * One scripted session, whatever the server's tool names. Each call is one MCP tool call with the server's default
 * options, so the time and size are what a model gets from that server.
 */
export class Driver {
  /** chrome-devtools-mcp routes page tools by page id; found with list_pages. */
  private pageId: number | undefined;

  constructor(
    readonly client: Client,
    readonly dialect: Dialect,
  ) {}

  async call(name: string, args: Record<string, unknown>): Promise<string> {
    const result = (await this.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolResult;
    const text = textOf(result);
    if (result.isError) throw new ToolError(`${name}: ${text.replace(/\s+/g, ' ').slice(0, 500)}`);
    return text;
  }

  /** Call before timing anything: learns the page id (chrome-devtools-mcp). */
  async init(): Promise<void> {
    if (this.dialect !== 'devtools') return;
    const pages = await this.call('list_pages', {});
    const selected = /^(\d+):.*\[selected\]/m.exec(pages) ?? /^(\d+):/m.exec(pages);
    if (!selected) throw new Error(`no page in list_pages:\n${pages}`);
    this.pageId = Number(selected[1]);
  }

  private page(): { pageId: number } | Record<string, never> {
    return this.pageId === undefined ? {} : { pageId: this.pageId };
  }

  navigate(url: string): Promise<string> {
    if (this.dialect === 'devtools') return this.call('navigate_page', { ...this.page(), type: 'url', url });
    return this.call('browser_navigate', { url });
  }

  snapshot(): Promise<string> {
    if (this.dialect === 'devtools') return this.call('take_snapshot', this.page());
    return this.call('browser_snapshot', {});
  }

  click(ref: string, element: string): Promise<string> {
    if (this.dialect === 'devtools') return this.call('click', { ...this.page(), uid: ref });
    return this.call('browser_click', { target: ref, element });
  }

  type(ref: string, element: string, text: string): Promise<string> {
    if (this.dialect === 'devtools') return this.call('fill', { ...this.page(), uid: ref, value: text });
    return this.call('browser_type', { target: ref, element, text });
  }

  evaluate(fn: string): Promise<string> {
    if (this.dialect === 'devtools') return this.call('evaluate_script', { ...this.page(), function: fn });
    return this.call('browser_evaluate', { function: fn });
  }

  /**
   * Whether a ref stays usable after an action. @playwright/mcp renumbers its refs with the snapshot every action
   * answers with ("Ref f3e12 not found in the current page snapshot"), so its loops take an untimed snapshot first.
   */
  get refsSurviveActions(): boolean {
    return this.dialect !== 'playwright';
  }

  /** The ref (uid) of the element with this role whose accessible name starts with `name`. */
  refIn(snapshot: string, role: string, name: string): string {
    const quoted = `${role} "${name}`;
    for (const line of snapshot.split('\n')) {
      if (!line.includes(quoted)) continue;
      const ref = this.dialect === 'devtools' ? /uid=(\S+)/.exec(line)?.[1] : /\[ref=([^\]]+)\]/.exec(line)?.[1];
      if (ref) return ref;
    }
    throw new Error(`no ref for ${quoted} in the ${this.dialect} snapshot:\n${snapshot.slice(0, 1_500)}`);
  }
}
