import {
  ErrorCodes,
  parseMessage,
  parseProxyParams,
  parseProxyResult,
  ProxyMethods,
  type JsonRpcId,
  type ProxyParams,
  type ProxyRequestMethod,
  type ProxyResult,
} from '@browsermcp/protocol';
import type { ToolResult } from '@browsermcp/tools';
import WebSocket from 'ws';
import type { Backend } from './backend.js';

export interface RemoteBackendOptions {
  /** The daemon's proxy endpoint, e.g. ws://host:8765/mcp (wss:// off loopback). */
  daemonUrl: string;
  /** A token from `browsermcp-daemon token --user U --secret-file F`; empty for a daemon without auth. */
  daemonToken: string;
  /** Which browser to drive (an extension id from list_extensions, or "local"); the first connected by default. */
  browser?: string | undefined;
  /** How long a request to the daemon may take. */
  timeoutMs?: number;
}

/** A daemon-side failure, kept with its JSON-RPC code so it reaches the model as the daemon worded it. */
export class RemoteDaemonError extends Error {
  override readonly name = 'RemoteDaemonError';
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** One MCP session's connection to a remote daemon, speaking the proxy protocol (JSON-RPC over WebSocket). */
class ProxyConnection {
  private nextId = 1;
  private readonly pending = new Map<JsonRpcId, Pending>();
  closed = false;
  connected = true;

  private constructor(
    private readonly ws: WebSocket,
    private readonly timeoutMs: number,
  ) {
    ws.on('message', (data) => this.receive(data.toString()));
    ws.on('close', () => this.fail(new RemoteDaemonError('The connection to the remote daemon closed; call the tool again to reconnect.', ErrorCodes.BrowserDisconnected)));
  }

  static open(url: string, timeoutMs: number): Promise<ProxyConnection> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new ProxyConnection(ws, timeoutMs)));
      ws.once('unexpected-response', (_req, res) => reject(new RemoteDaemonError(`The daemon at ${url} refused the connection (HTTP ${res.statusCode}).`, ErrorCodes.BrowserDisconnected)));
      ws.once('error', (err) => reject(new RemoteDaemonError(`Cannot reach the daemon at ${url}: ${err.message}. Check --daemon-url and that browsermcp-daemon runs there.`, ErrorCodes.BrowserDisconnected)));
    });
  }

  private receive(text: string): void {
    const parsed = parseMessage(text);
    if (!parsed.ok || parsed.kind === 'batch' || parsed.kind === 'request') return;
    if (parsed.kind === 'notification') {
      const { method, params } = parsed.message;
      if (method === ProxyMethods.status) {
        const status = parseProxyParams(ProxyMethods.status, params);
        if (status.ok) this.connected = status.value.state === 'connected';
      } else if (method === ProxyMethods.disconnected) {
        this.connected = false;
      }
      return;
    }
    const message = parsed.message;
    if (message.id === null) return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    clearTimeout(waiting.timer);
    const error = 'error' in message ? message.error : undefined;
    if (error) waiting.reject(new RemoteDaemonError(error.message, error.code));
    else waiting.resolve('result' in message ? message.result : undefined);
  }

  /** A proxy request, its result checked against the protocol's schema (a malformed one is the daemon's bug). */
  async proxy<M extends ProxyRequestMethod>(method: M, params?: ProxyParams<M>): Promise<ProxyResult<M>> {
    const checked = parseProxyResult(method, await this.request(method, params));
    if (!checked.ok) throw new RemoteDaemonError(`The daemon answered ${method} with a malformed result: ${checked.error.message}.`, checked.error.code);
    return checked.value;
  }

  /** `signal`: cancels the call, as MCP does: the daemon hears `notifications/cancelled` and stops it. */
  request(method: string, params?: unknown, signal?: AbortSignal): Promise<unknown> {
    if (this.closed) return Promise.reject(new RemoteDaemonError('The connection to the remote daemon is closed.', ErrorCodes.BrowserDisconnected));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        this.ws.send(JSON.stringify({ jsonrpc: '2.0', method: ProxyMethods.cancelled, params: { requestId: id } }));
        reject(new RemoteDaemonError(`${method} was cancelled by its caller.`, ErrorCodes.Cancelled));
      };
      // Every other way the call ends (answer, failure, timeout) stops listening for the cancellation.
      const ended = <T>(settle: (value: T) => void) => (value: T) => {
        signal?.removeEventListener('abort', onAbort);
        settle(value);
      };
      const fail = ended(reject);
      const timer = setTimeout(() => {
        this.pending.delete(id);
        fail(new RemoteDaemonError(`${method} got no answer from the daemon within ${Math.round(this.timeoutMs / 1000)} s.`, ErrorCodes.Timeout));
      }, this.timeoutMs);
      this.pending.set(id, { resolve: ended(resolve), reject: fail, timer });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  private fail(error: Error): void {
    this.closed = true;
    this.connected = false;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(error);
      this.pending.delete(id);
    }
  }

  close(): void {
    this.fail(new RemoteDaemonError('The session ended.', ErrorCodes.BrowserDisconnected));
    this.ws.close();
  }
}

/** A tool's answer from the daemon: MCP content parts (anything else is the daemon's bug, said as an error). */
function toolResult(name: string, value: unknown): ToolResult {
  const result = value as Partial<ToolResult> | null;
  const valid =
    typeof result === 'object' &&
    result !== null &&
    Array.isArray(result.content) &&
    result.content.every((c) => (c.type === 'text' && typeof c.text === 'string') || (c.type === 'image' && typeof c.data === 'string' && typeof c.mimeType === 'string'));
  if (!valid) throw new RemoteDaemonError(`The daemon answered ${name} with something that is not a tool result.`, ErrorCodes.InternalError);
  return result as ToolResult;
}

/**
 * A daemon on another machine (or process) through its /mcp proxy endpoint: each MCP session gets its own
 * authenticated connection and daemon session on the chosen browser.
 */
export class RemoteBackend implements Backend {
  readonly mode = 'remote' as const;
  private readonly sessions = new Map<string, Promise<ProxyConnection>>();
  /** The sessions' open connections, once they are open (for /health). */
  private readonly connections = new Map<string, ProxyConnection>();

  constructor(private readonly options: RemoteBackendOptions) {}

  private async connect(): Promise<ProxyConnection> {
    const timeoutMs = this.options.timeoutMs ?? 90_000;
    const conn = await ProxyConnection.open(this.options.daemonUrl, timeoutMs);
    try {
      await conn.proxy(ProxyMethods.mcpHandshake, { accessToken: this.options.daemonToken });
      const { extensions } = await conn.proxy(ProxyMethods.listExtensions);
      const choice = this.options.browser ?? extensions.find((e) => e.connected)?.id;
      if (!choice) {
        throw new RemoteDaemonError('The remote daemon has no browser connected: start one there (or connect its extension), then call the tool again.', ErrorCodes.BrowserDisconnected);
      }
      await conn.proxy(ProxyMethods.connect, { extension_id: choice });
      return conn;
    } catch (err) {
      conn.close();
      throw err;
    }
  }

  async openSession(sessionId: string): Promise<void> {
    const opening = this.connect();
    this.sessions.set(sessionId, opening);
    try {
      this.connections.set(sessionId, await opening);
    } catch (err) {
      this.sessions.delete(sessionId);
      this.connections.delete(sessionId);
      throw err;
    }
  }

  async callTool(sessionId: string, name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    let conn = await this.sessions.get(sessionId)?.catch(() => undefined);
    // The daemon restarted or the link dropped: this call opens a new connection (and daemon session).
    if (!conn || conn.closed) {
      await this.openSession(sessionId);
      conn = await this.sessions.get(sessionId)!;
    }
    return toolResult(name, await conn.request(name, args, signal));
  }

  async closeSession(sessionId: string): Promise<void> {
    const opening = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    this.connections.delete(sessionId);
    const conn = await opening?.catch(() => undefined);
    if (!conn) return;
    await conn.proxy(ProxyMethods.disconnect).catch(() => undefined);
    conn.close();
  }

  /** Whether the daemon says a browser is connected for an open session: the last status it sent, not a guess. */
  browserConnected(): boolean {
    return [...this.connections.values()].some((c) => !c.closed && c.connected);
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.closeSession(id)));
  }
}
