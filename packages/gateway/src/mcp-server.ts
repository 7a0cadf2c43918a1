import {
  isInputRequiredResult,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
  type Tool as McpTool,
} from '@modelcontextprotocol/server';
import { formatDuration } from '@browsermcp/daemon';
import { ErrorCodes } from '@browsermcp/protocol';
import { browserArgumentSchema, browserStateTools, errorResult, type Tool, type ToolResult, type ToolSchema } from '@browsermcp/tools';
import { z } from 'zod';
import { backendErrorCode, ProtocolError } from './errors.js';
import { PageTools, takePageTools } from './page-tools.js';
import type { RecordCall } from './session-records.js';

export const SERVER_NAME = 'browsermcp';

const INSTRUCTIONS =
  'Drive a real browser. Start with browser_navigate; use browser_snapshot refs (e12) as targets for actions. ' +
  'Use browser_find on pages too big to snapshot.';

/**
 * The MCP tool list for a set of catalog tools, with JSON schemas and hints derived once: each takes the optional
 * `browser` handle, and the browser state tools come last. One list for both protocol eras.
 */
export function describeTools(tools: readonly Tool[], stateIdleMs: number): McpTool[] {
  const idle = formatDuration(stateIdleMs);
  const browser = z.toJSONSchema(browserArgumentSchema(idle), { io: 'input' }) as NonNullable<McpTool['inputSchema']['properties']>[string];
  const described = tools.map((t) => {
    const schema = describe(t.schema);
    const properties = { ...(schema.inputSchema.properties ?? {}), browser };
    return { ...schema, inputSchema: { ...schema.inputSchema, properties } };
  });
  return [...described, ...[browserStateTools.open(idle), browserStateTools.list(), browserStateTools.close()].map(describe)];
}

function describe(schema: ToolSchema<z.ZodType>): McpTool {
  return {
    name: schema.name,
    title: schema.title,
    description: schema.description,
    inputSchema: z.toJSONSchema(schema.inputSchema, { io: 'input', unrepresentable: 'any' }) as McpTool['inputSchema'],
    annotations: {
      title: schema.title,
      readOnlyHint: schema.type === 'readOnly',
      destructiveHint: schema.type === 'action',
      openWorldHint: true,
    },
  };
}

export type ToolCallLog = (entry: { sessionId: string; tool: string; ms: number; ok: boolean; error?: string }) => void;

/**
 * Where one MCP server's tool calls go: a 2025 session's own daemon session (see SessionCalls), or, in the stateless
 * 2026-07-28 era, the browser state the request names (see StatelessCalls).
 */
export interface CallRoute {
  /** The 2025 handshake completed (never called in the stateless era). */
  initialized?(server: Server): void;
  /**
   * Runs one call; `ctx` is the request's, for its signal and for asking the client on its stream. A 2026-07-28 call
   * may answer that it needs input first (the client's roots), and is sent again with it.
   */
  run(name: string, args: Record<string, unknown>, ctx: ServerContext): Promise<ToolResult | InputRequiredResult>;
  /** What a running call waits for (the person, the browser starting), for progress notifications. */
  waitingFor(): string | undefined;
  /** Who the call is for, in logs: a session id or a state label. */
  readonly label: string;
  /** Whose record (--save-session) a call goes into, when not `label`'s: a stateless call's browser state. */
  recordLabel?(args: Record<string, unknown>): string;
}

/**
 * One MCP server: per 2025 session, or per 2026-07-28 request. Arguments go to the daemon as they came: the tool
 * engine checks them and answers bad ones with an `isError` result that says what to fix, the same for every
 * transport and executor.
 */
export function createMcpServer(options: {
  /** Where its calls go, made once the server exists (a route may listen to the server's notifications). */
  route: (server: Server) => CallRoute;
  tools: McpTool[];
  version: string;
  log: ToolCallLog;
  /** --progress-interval, ms: how often a call that waits says so to a client that asked for progress. */
  progressIntervalMs?: number;
  /** --save-session: each call and its answer, in the session's record. */
  record?: RecordCall | undefined;
  /**
   * A 2025 session: the current page's own tools (WebMCP) are offered as tools of their own, with tools/list_changed.
   * A 2026-07-28 request has one tool list for every client: browser_webmcp_call reaches them.
   */
  pageTools?: boolean | undefined;
}): Server {
  const names = new Set(options.tools.map((t) => t.name));
  const pageTools = options.pageTools ? new PageTools() : undefined;
  const server = new Server(
    { name: SERVER_NAME, version: options.version, title: 'browsermcp' },
    {
      capabilities: { tools: pageTools ? { listChanged: true } : {} },
      instructions: INSTRUCTIONS,
      // The list changes only with the gateway's flags: a client may keep it for a while (2026-07-28 cache hints).
      cacheHints: { 'tools/list': { ttlMs: 300_000, cacheScope: 'public' } },
    },
  );
  const route = options.route(server);
  server.oninitialized = () => route.initialized?.(server);

  server.setRequestHandler('tools/list', async () => ({ tools: pageTools ? [...options.tools, ...pageTools.list()] : options.tools }));
  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult | InputRequiredResult> => {
    let { name, arguments: args } = request.params;
    const pageTool = pageTools?.route(name);
    // webmcp_<name>: the page's tool, called as browser_webmcp_call would (the same checks, the same answer).
    if (pageTool)
      [name, args] = ['browser_webmcp_call', { name: pageTool.name, params: args ?? {}, ...(pageTool.frame !== undefined ? { frame: pageTool.frame } : {}) }];
    else if (!names.has(name)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool "${name}". List the tools with tools/list.`);
    }
    const started = performance.now();
    const recordAs = route.recordLabel?.(args ?? {}) ?? route.label;
    const progress = progressTicker(
      ctx.mcpReq._meta?.progressToken,
      () => {
        const waiting = route.waitingFor();
        return `${name} is still running (${Math.round((performance.now() - started) / 1000)} s)${waiting ? `: ${waiting}` : ''}`;
      },
      (notification) => ctx.mcpReq.notify(notification),
      options.progressIntervalMs ?? PROGRESS_INTERVAL_MS,
    );
    try {
      const result = await route.run(name, args ?? {}, ctx);
      if (isInputRequiredResult(result)) return result;
      // The page's tools changed: a 2025 client is told to list the tools again; the report never reaches the model.
      if (!pageTools) takePageTools(result);
      else if (pageTools.take(result)) void server.sendToolListChanged().catch(() => undefined);
      options.log({ sessionId: route.label, tool: name, ms: performance.now() - started, ok: !result.isError });
      options.record?.(recordAs, name, args ?? {}, result);
      return result as CallToolResult;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      options.log({ sessionId: route.label, tool: name, ms: performance.now() - started, ok: false, error: ctx.mcpReq.signal.aborted ? 'cancelled' : message });
      options.record?.(recordAs, name, args ?? {}, { error: message });
      // A tool the browser does not know is a protocol error, embedded and through a remote daemon alike.
      if (backendErrorCode(err) === ErrorCodes.MethodNotFound) throw new ProtocolError(ProtocolErrorCode.InvalidParams, message);
      // Daemon failures (timeout, browser gone, none connected) are tool results the model can act on, not
      // protocol errors.
      if (!(err instanceof ProtocolError)) return errorResult(message) as CallToolResult;
      throw err;
    } finally {
      progress.stop();
    }
  });
  return server;
}

/** How often a call that is still running says so, when its client asked for progress (--progress-interval's default). */
export const PROGRESS_INTERVAL_MS = 10_000;

interface ProgressNotification {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; message: string };
}

/**
 * Progress notifications for a call that waits (a page that loads slowly, browser_wait_for, a browser that is
 * starting): every `intervalMs`, how long it has run, so the client (and the person watching it) knows it is
 * alive and may keep its request open. Nothing without a progressToken.
 */
function progressTicker(
  token: string | number | undefined,
  describe: () => string,
  send: (notification: ProgressNotification) => Promise<void>,
  intervalMs: number,
): { stop(): void } {
  if (token === undefined) return { stop: () => undefined };
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
    void send({ method: 'notifications/progress', params: { progressToken: token, progress: ticks, message: describe() } }).catch(() => undefined);
  }, intervalMs);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
