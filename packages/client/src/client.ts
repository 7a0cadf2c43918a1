import { MCPError } from './errors.js';
import { readSSE, SSEParser } from './sse.js';
import type {
  CallResult,
  CallToolResult,
  FetchLike,
  InitializeResult,
  JSONRPCNotification,
  MCPClientEvents,
  MCPClientOptions,
  Progress,
  RequestOptions,
  Tool,
} from './types.js';

/** Errors of Node's fetch (undici) for a pooled connection that was already closed by the server. */
const DEAD_SOCKET = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

declare const __VERSION__: string;

/** Newest first: the first is offered, the others are accepted when the server answers with them. */
export const PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

type Message = Record<string, unknown>;
interface Pending {
  resolve(result: unknown): void;
  reject(error: MCPError): void;
  progress(progress: Progress): void;
}

const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null;
const noop = () => undefined;
const within = (ms: number): AbortSignal => (ms > 0 ? AbortSignal.timeout(ms) : new AbortController().signal);
const asError = (e: unknown): MCPError =>
  e instanceof MCPError ? e : new MCPError('NETWORK', `The connection failed: ${(e as Error).message}`, { cause: e });
// Resolves early (not rejects) when the signal fires: the caller checks the signal next.
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });

/**
 * An MCP client over Streamable HTTP (spec 2025-11-25, back to 2025-03-26) with nothing but `fetch`.
 * Requests initialize the session on first use; a session the server forgot (404) is replaced once, transparently.
 */
export class MCPClient {
  readonly url: string;
  private readonly fetch: FetchLike;
  private readonly timeout: number;
  private sid: string | undefined;
  private version: string | undefined;
  private ready: Promise<InitializeResult> | undefined;
  private tools: Tool[] | undefined;
  private stream: AbortController | undefined;
  private nextId = 1;
  private readonly pending = new Map<unknown, Pending>();
  private readonly listeners: { [E in keyof MCPClientEvents]: Set<MCPClientEvents[E]> } = {
    notification: new Set(),
    error: new Set(),
  };

  constructor(
    url: string | URL,
    private readonly options: MCPClientOptions = {},
  ) {
    this.url = String(url);
    this.fetch = options.fetch ?? ((u, init) => fetch(u, init));
    this.timeout = options.timeout ?? 30_000;
  }

  /** Listens to `notification` or `error`; returns the function that stops listening. */
  on<E extends keyof MCPClientEvents>(event: E, listener: MCPClientEvents[E]): () => void {
    this.listeners[event].add(listener);
    return () => this.off(event, listener);
  }

  off<E extends keyof MCPClientEvents>(event: E, listener: MCPClientEvents[E]): void {
    this.listeners[event].delete(listener);
  }

  /** Sends initialize and notifications/initialized (once; every request waits for it). */
  connect(): Promise<InitializeResult> {
    return (this.ready ??= this.init().catch((e: unknown) => {
      this.ready = undefined;
      throw e;
    }));
  }

  getSessionId(): string | undefined {
    return this.sid;
  }

  /** The server's tools, cached; `refresh` asks again (so does a tools/list_changed notification). */
  async listTools(refresh = false): Promise<Tool[]> {
    if (this.tools && !refresh) return this.tools;
    const tools: Tool[] = [];
    let cursor: unknown;
    do {
      const page = await this.request<{ tools: Tool[]; nextCursor?: string }>('tools/list', cursor ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return (this.tools = tools);
  }

  /**
   * Calls a tool. A tool's own failure is a result with `isError`; protocol and transport failures, and an unknown
   * tool, throw MCPError.
   */
  async call(name: string, args: Record<string, unknown> = {}, options?: RequestOptions): Promise<CallResult> {
    const raw = await this.request<CallToolResult>('tools/call', { name, arguments: args }, options);
    const text = (raw.content ?? [])
      .filter((part) => part.type === 'text')
      .map((part) => part.text)
      .join('\n');
    // The SDK's McpServer turns "unknown tool" into a result; make it the protocol error it is everywhere else.
    if (raw.isError && /^MCP error -32602: Tool \S+ not found$/.test(text)) throw new MCPError(-32602, text);
    let data: unknown = raw.structuredContent;
    if (data === undefined) {
      try {
        data = JSON.parse(text);
      } catch {
        // not JSON: data stays undefined
      }
    }
    return { raw, text, data, isError: raw.isError === true };
  }

  /** Any JSON-RPC request (resources/list, prompts/get…); re-initializes once if the session expired. */
  async request<T = unknown>(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<T> {
    await this.connect();
    const sid = this.sid;
    try {
      return (await this.send(method, params, options)) as T;
    } catch (e) {
      if (!(e instanceof MCPError && e.isSessionExpired())) throw e;
      const hadStream = this.stream !== undefined;
      if (this.sid === sid) this.reset();
      await this.connect();
      if (hadStream) this.openStream().catch(noop);
      return (await this.send(method, params, options)) as T;
    }
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.connect();
    await this.post({ jsonrpc: '2.0', method, params }, within(this.timeout));
  }

  /**
   * Opens the GET stream for server messages outside any request. It reconnects when the server closes it (the
   * 2025-11-25 polling pattern), after the server's `retry` time, with Last-Event-ID. Resolves false when the server
   * offers no such stream (405).
   */
  async openStream(): Promise<boolean> {
    await this.connect();
    if (this.stream) return true;
    const ctl = (this.stream = new AbortController());
    try {
      const res = await this.http('GET', ctl.signal);
      if (res.status === 405) throw 0;
      this.consume(res, ctl.signal).catch((e: unknown) => {
        if (this.stream !== ctl) return;
        this.stream = undefined;
        this.emit('error', asError(e));
      });
      return true;
    } catch (e) {
      if (this.stream === ctl) this.stream = undefined;
      if (e === 0) return false;
      throw e;
    }
  }

  closeStream(): void {
    this.stream?.abort();
    this.stream = undefined;
  }

  /** Ends the session: pending requests fail with CLOSED, DELETE tells the server (405 and errors are ignored). */
  async close(): Promise<void> {
    this.closeStream();
    for (const p of [...this.pending.values()]) p.reject(new MCPError('CLOSED', 'The client was closed'));
    if (this.sid) await this.http('DELETE', within(this.timeout)).catch(noop);
    this.reset();
  }

  private reset(): void {
    this.closeStream();
    this.sid = this.version = this.ready = this.tools = undefined;
  }

  private async init(): Promise<InitializeResult> {
    this.sid = this.version = undefined;
    const first = this.options.protocolVersion ?? PROTOCOL_VERSIONS[0]!;
    const offers = [first, ...PROTOCOL_VERSIONS.filter((v) => v < first)];
    for (let i = 0; ; i++) {
      try {
        const result = (await this.send('initialize', {
          protocolVersion: offers[i],
          capabilities: {},
          clientInfo: this.options.clientInfo ?? { name: 'browsermcp-client', version: __VERSION__ },
        })) as InitializeResult;
        if (!PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
          throw new MCPError('PROTOCOL', `The server speaks MCP ${result.protocolVersion}; this client speaks ${PROTOCOL_VERSIONS.join(', ')}`);
        }
        this.version = result.protocolVersion;
        await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, within(this.timeout));
        return result;
      } catch (e) {
        // Some servers refuse a version they do not know instead of answering with theirs: offer the next one.
        const refused = e instanceof MCPError && (e.status === 400 || e.code === -32602) && /version/i.test(e.message);
        if (!refused || i + 1 >= offers.length) throw e;
      }
    }
  }

  /** One request: its answer arrives in the POST response (JSON or SSE), a resumed stream, or the GET stream. */
  private send(method: string, params: Message | undefined, options: RequestOptions = {}): Promise<unknown> {
    const id = this.nextId++;
    const ctl = new AbortController();
    const { signal, onProgress } = options;
    const ms = options.timeout ?? this.timeout;
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        clearTimeout(timer);
        if (ms > 0) timer = setTimeout(() => fail(new MCPError('TIMEOUT', `${method} got no answer within ${ms} ms`)), ms);
      };
      const settle = () => {
        const was = this.pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        ctl.abort();
        return was;
      };
      const fail = (error: MCPError) => {
        if (!settle()) return;
        // Ask the server to stop (initialize must never be cancelled).
        if ((error.code === 'TIMEOUT' || error.code === 'ABORTED') && method !== 'initialize' && this.version) {
          this.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: error.message } }, within(this.timeout)).catch(noop);
        }
        reject(error);
      };
      const onAbort = () => fail(new MCPError('ABORTED', `${method} was aborted`, { cause: signal?.reason }));
      this.pending.set(id, {
        resolve: (result) => settle() && resolve(result),
        reject: fail,
        progress: (p) => {
          arm();
          onProgress?.(p);
        },
      });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort);
      arm();
      const body = onProgress ? { ...params, _meta: { ...(params?._meta as Message), progressToken: id } } : params;
      this.post({ jsonrpc: '2.0', id, method, params: body }, ctl.signal, id).catch((e: unknown) => this.pending.get(id)?.reject(asError(e)));
    });
  }

  private async post(message: Message, signal: AbortSignal, id?: number): Promise<void> {
    const res = await this.http('POST', signal, message);
    if (message.method === 'initialize') this.sid = res.headers.get('mcp-session-id') ?? undefined;
    // Notifications and responses get 202; a request answered with 202 waits for its answer on the GET stream.
    if (id === undefined || res.status === 202) return void res.body?.cancel().catch(noop);
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) return this.consume(res, signal, id);
    if (!type.includes('json')) throw new MCPError('BAD_RESPONSE', `Unexpected content type "${type}"`, { status: res.status });
    this.receive(parse(await res.text()));
    if (this.pending.has(id)) throw new MCPError('BAD_RESPONSE', `The response holds no answer to request ${id}`);
  }

  private async http(method: 'GET' | 'POST' | 'DELETE', signal: AbortSignal, body?: Message, lastEventId?: string): Promise<Response> {
    const sid = this.sid;
    const headers: Record<string, string> = {
      ...this.options.headers,
      accept: method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream',
    };
    if (body) headers['content-type'] = 'application/json';
    if (sid) headers['mcp-session-id'] = sid;
    if (this.version) headers['mcp-protocol-version'] = this.version;
    if (lastEventId) headers['last-event-id'] = lastEventId;
    let res: Response;
    const send = () => this.fetch(this.url, { method, headers, body: body && JSON.stringify(body), signal });
    try {
      res = await send().catch((cause: unknown) => {
        // Node's fetch may hand out a pooled connection the server has just closed (it restarted): that request
        // never reached a server, so it is sent once more on a fresh connection. Browsers do this themselves.
        if (signal.aborted || !DEAD_SOCKET.has((cause as { cause?: { code?: string } }).cause?.code ?? '')) throw cause;
        return send();
      });
    } catch (cause) {
      throw signal.aborted
        ? new MCPError('TIMEOUT', `${method} ${this.url} was stopped`, { cause })
        : new MCPError('NETWORK', `Cannot reach ${this.url}: ${(cause as Error).message}`, { cause });
    }
    const status = res.status;
    if (res.ok || (status === 405 && method !== 'POST')) return res;
    let error: Message = {};
    try {
      const parsed: unknown = JSON.parse(await res.text());
      if (isObject(parsed) && isObject(parsed.error)) error = parsed.error;
    } catch {
      // not a JSON-RPC error body
    }
    const code = typeof error.code === 'number' ? error.code : 'HTTP';
    throw new MCPError(
      status === 404 && sid ? 'SESSION_EXPIRED' : status === 401 || status === 403 ? 'UNAUTHORIZED' : code,
      typeof error.message === 'string' ? error.message : `HTTP ${status} ${res.statusText}`,
      { status, data: error.data },
    );
  }

  /**
   * Reads an SSE response into receive(). When a request's stream ends (or breaks) before its answer, it is resumed
   * with GET + Last-Event-ID after the server's `retry` time (SEP-1699); the standalone GET stream (no id) is
   * reconnected the same way until it is closed.
   */
  private async consume(res: Response, signal: AbortSignal, id?: number): Promise<void> {
    let got = false;
    const parser = new SSEParser((event) => {
      got = true;
      if (event.event === 'message' && event.data) this.receive(parse(event.data));
    });
    const done = () => signal.aborted || (id !== undefined && !this.pending.has(id));
    for (let failures = 0; ; ) {
      const lastId = parser.id;
      got = false;
      try {
        if (res.body) await readSSE(res.body, parser, done);
      } catch (e) {
        if (e instanceof MCPError) throw e;
        // a broken connection: resumed like a closed one
      }
      if (done()) return;
      failures = got || parser.id !== lastId ? 0 : failures + 1;
      if ((id !== undefined && !parser.id) || failures >= 3) {
        throw new MCPError('NETWORK', `The stream ended before ${id ? 'the answer' : 'it was closed'}${parser.id ? '' : ', with no event id to resume from'}`);
      }
      for (;;) {
        await sleep(parser.retry ?? 1000, signal);
        if (done()) return;
        parser.reset();
        try {
          res = await this.http('GET', signal, undefined, parser.id);
          break;
        } catch (e) {
          if (!(e instanceof MCPError && e.isNetworkError()) || ++failures >= 3) throw e;
        }
      }
      if (res.status === 405) throw new MCPError('NETWORK', 'The stream ended and the server offers no GET stream to resume it');
    }
  }

  private receive(message: unknown): void {
    if (Array.isArray(message)) return message.forEach((m) => this.receive(m));
    if (!isObject(message)) return;
    const { id, method } = message;
    if (typeof method === 'string') {
      if (id !== undefined && id !== null) {
        // A request from the server: we answer ping and declare everything else unknown (we offer no capabilities).
        const answer = method === 'ping' ? { result: {} } : { error: { code: -32601, message: `Method not found: ${method}` } };
        this.post({ jsonrpc: '2.0', id, ...answer }, within(this.timeout)).catch(noop);
        return;
      }
      const params = isObject(message.params) ? message.params : {};
      if (method === 'notifications/progress') this.pending.get(params.progressToken)?.progress(params as unknown as Progress);
      if (method === 'notifications/tools/list_changed') this.tools = undefined;
      return this.emit('notification', message as unknown as JSONRPCNotification);
    }
    const pending = this.pending.get(id);
    const error = message.error;
    if (!isObject(error)) return pending?.resolve(message.result);
    pending?.reject(new MCPError(typeof error.code === 'number' ? error.code : 'BAD_RESPONSE', String(error.message), { data: error.data }));
  }

  private emit<E extends keyof MCPClientEvents>(event: E, arg: Parameters<MCPClientEvents[E]>[0]): void {
    for (const listener of this.listeners[event]) {
      try {
        (listener as (a: typeof arg) => void)(arg);
      } catch (e) {
        // A listener's bug must not break the stream: report it like an event handler's (uncaught, later).
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new MCPError('BAD_RESPONSE', `The server sent invalid JSON: ${text.slice(0, 80)}`, { cause });
  }
}
