import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes } from '@browsermcp/protocol';
import { errorResult, type Tool } from '@browsermcp/tools';
import { z } from 'zod';
import type { Backend } from './backend.js';
import { backendErrorCode, ProtocolError } from './errors.js';
import { ClientRoots, type RootsPolicy } from './roots.js';

export const SERVER_NAME = 'browsermcp';

/** The MCP tool list for a set of catalog tools, with JSON schemas and hints derived once. */
export function describeTools(tools: readonly Tool[]): McpTool[] {
  return tools.map((t) => ({
    name: t.schema.name,
    title: t.schema.title,
    description: t.schema.description,
    inputSchema: z.toJSONSchema(t.schema.inputSchema, { io: 'input', unrepresentable: 'any' }) as McpTool['inputSchema'],
    annotations: {
      title: t.schema.title,
      readOnlyHint: t.schema.type === 'readOnly',
      destructiveHint: t.schema.type === 'action',
      openWorldHint: true,
    },
  }));
}

export interface ToolCallLog {
  (entry: { sessionId: string; tool: string; ms: number; ok: boolean; error?: string }): void;
}

/**
 * One MCP server per MCP session. Arguments go to the daemon as they came: the tool engine checks them and answers
 * bad ones with an `isError` result that says what to fix, the same for every transport and executor.
 */
export function createMcpServer(options: {
  sessionId: () => string | undefined;
  backend: Backend;
  tools: McpTool[];
  version: string;
  /** The session is initialized: open it, with the client's roots for the file policy. */
  onSessionReady: (clientName: string | undefined, roots: () => Promise<string[]>) => Promise<void>;
  /** Whose folders input files may come from (see RootsPolicy). */
  roots: RootsPolicy;
  log: ToolCallLog;
  /** --progress-interval, ms: how often a call that waits says so to a client that asked for progress. */
  progressIntervalMs?: number;
}): Server {
  const names = new Set(options.tools.map((t) => t.name));
  const server = new Server(
    { name: SERVER_NAME, version: options.version, title: 'browsermcp' },
    {
      capabilities: { tools: {} },
      instructions:
        'Drive a real browser. Start with browser_navigate; use browser_snapshot refs (e12) as targets for actions. ' +
        'Use browser_find on pages too big to snapshot.',
    },
  );
  const roots = new ClientRoots(server, options.roots);
  let ready: Promise<void> | undefined;
  // A failed open (no browser connected yet) is tried again by the next tool call.
  const ensureReady = () =>
    (ready ??= options.onSessionReady(server.getClientVersion()?.name, () => roots.get()).catch((err: unknown) => {
      ready = undefined;
      throw err;
    }));
  server.oninitialized = () => void ensureReady().catch(() => undefined);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: options.tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    if (!names.has(name)) {
      throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool "${name}". List the tools with tools/list.`);
    }
    const sessionId = options.sessionId();
    if (!sessionId) throw new ProtocolError(ErrorCode.InternalError, 'This MCP session has no id yet.');
    const started = performance.now();
    const progress = progressTicker(
      request.params._meta?.progressToken,
      () => {
        const waiting = options.backend.waitingFor?.(sessionId);
        return `${name} is still running (${Math.round((performance.now() - started) / 1000)} s)${waiting ? `: ${waiting}` : ''}`;
      },
      (notification) => extra.sendNotification(notification),
      options.progressIntervalMs ?? PROGRESS_INTERVAL_MS,
    );
    try {
      await ensureReady();
      const result = await roots.during(extra, () => options.backend.callTool(sessionId, name, args ?? {}, extra.signal));
      options.log({ sessionId, tool: name, ms: performance.now() - started, ok: !result.isError });
      return result as CallToolResult;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      options.log({ sessionId, tool: name, ms: performance.now() - started, ok: false, error: extra.signal.aborted ? 'cancelled' : message });
      // Daemon failures (timeout, browser gone, none connected) are tool results the model can act on, not
      // protocol errors.
      // A tool the browser does not know is a protocol error, embedded and through a remote daemon alike.
      if (backendErrorCode(err) === ErrorCodes.MethodNotFound) throw new ProtocolError(ErrorCode.InvalidParams, message);
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

/**
 * Progress notifications for a call that waits (a page that loads slowly, browser_wait_for, a browser that is
 * starting): every `intervalMs`, how long it has run, so the client (and the person watching it) knows it is
 * alive and may keep its request open. Nothing without a progressToken.
 */
function progressTicker(
  token: string | number | undefined,
  describe: () => string,
  send: (notification: ServerNotification) => Promise<void>,
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
