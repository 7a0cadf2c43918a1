import { ErrorCodes, ProxyMethods, parseMessage, type JsonRpcId } from '@browsermcp/protocol';
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
    if (!parsed.ok || parsed.kind === 'batch') return;
    const message = parsed.message as { id?: JsonRpcId; method?: string; params?: { state?: string }; result?: unknown; error?: { code: number; message: string } };
    if (message.method === ProxyMethods.status) this.connected = message.params?.state === 'connected';
    if (message.method === ProxyMethods.disconnected) this.connected = false;
    if (message.id === undefined || message.method !== undefined) return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.error) waiting.reject(new RemoteDaemonError(message.error.message, message.error.code));
    else waiting.resolve(message.result);
  }

  request(method: string, params?: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new RemoteDaemonError('The connection to the remote daemon is closed.', ErrorCodes.BrowserDisconnected));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RemoteDaemonError(`${method} got no answer from the daemon within ${Math.round(this.timeoutMs / 1000)} s.`, ErrorCodes.Timeout));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
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

/**
 * A daemon on another machine (or process) through its /mcp proxy endpoint: each MCP session gets its own
 * authenticated connection and daemon session on the chosen browser.
 */
export class RemoteBackend implements Backend {
  readonly mode = 'remote' as const;
  private readonly sessions = new Map<string, Promise<ProxyConnection>>();

  constructor(private readonly options: RemoteBackendOptions) {}

  private async connect(): Promise<ProxyConnection> {
    const timeoutMs = this.options.timeoutMs ?? 90_000;
    const conn = await ProxyConnection.open(this.options.daemonUrl, timeoutMs);
    try {
      await conn.request(ProxyMethods.mcpHandshake, { accessToken: this.options.daemonToken });
      const { extensions } = (await conn.request(ProxyMethods.listExtensions)) as { extensions: Array<{ id: string; connected: boolean }> };
      const choice = this.options.browser ?? extensions.find((e) => e.connected)?.id;
      if (!choice) {
        throw new RemoteDaemonError('The remote daemon has no browser connected: start one there (or connect its extension), then call the tool again.', ErrorCodes.BrowserDisconnected);
      }
      await conn.request(ProxyMethods.connect, { extension_id: choice });
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
      await opening;
    } catch (err) {
      this.sessions.delete(sessionId);
      throw err;
    }
  }

  async callTool(sessionId: string, name: string, args: unknown): Promise<ToolResult> {
    let conn = await this.sessions.get(sessionId)?.catch(() => undefined);
    // The daemon restarted or the link dropped: this call opens a new connection (and daemon session).
    if (!conn || conn.closed) {
      await this.openSession(sessionId);
      conn = await this.sessions.get(sessionId)!;
    }
    return (await conn.request(name, args)) as ToolResult;
  }

  async closeSession(sessionId: string): Promise<void> {
    const opening = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    const conn = await opening?.catch(() => undefined);
    if (!conn) return;
    await conn.request(ProxyMethods.disconnect).catch(() => undefined);
    conn.close();
  }

  browserConnected(): boolean {
    return this.sessions.size > 0;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.closeSession(id)));
  }
}
