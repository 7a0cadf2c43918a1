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
import WebSocket from 'ws';
import { RemoteDaemonError } from '../errors.js';

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** One MCP session's connection to a remote daemon, speaking the proxy protocol (JSON-RPC over WebSocket). */
export class ProxyConnection {
  private nextId = 1;
  private readonly pending = new Map<JsonRpcId, Pending>();
  closed = false;
  connected = true;
  /** Told once when the connection ends, unless close() ended it. */
  onDrop: (() => void) | undefined;

  private constructor(
    private readonly ws: WebSocket,
    private readonly timeoutMs: number,
    readonly url: string,
  ) {
    ws.on('message', (data) => this.receive(data.toString()));
    ws.on('close', () => {
      const dropped = !this.closed;
      this.fail(
        new RemoteDaemonError(
          'The connection to the remote daemon dropped while this call ran; call the tool again (the session goes on).',
          ErrorCodes.BrowserDisconnected,
        ),
      );
      if (dropped) this.onDrop?.();
    });
  }

  static open(url: string, timeoutMs: number): Promise<ProxyConnection> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new ProxyConnection(ws, timeoutMs, url)));
      ws.once('unexpected-response', (_req, res) =>
        reject(
          new RemoteDaemonError(
            `The daemon at ${url} refused the connection (HTTP ${res.statusCode}).`,
            ErrorCodes.BrowserDisconnected,
            res.statusCode === 503,
          ),
        ),
      );
      ws.once('error', (err) =>
        reject(
          new RemoteDaemonError(
            `Cannot reach the daemon at ${url}: ${err.message}. Check --daemon-url and that browsermcp-daemon runs there.`,
            ErrorCodes.BrowserDisconnected,
            true,
          ),
        ),
      );
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
      const ended =
        <T>(settle: (value: T) => void) =>
        (value: T) => {
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
