import { MCPError } from './errors.js';
import { asError, HTTPTransport, isObject, noop, type Message, type Transport } from './transport.js';
import type {
  CallResult,
  CallToolResult,
  InitializeResult,
  JSONRPCNotification,
  MCPClientEvents,
  MCPClientOptions,
  Progress,
  RequestOptions,
  Tool,
} from './types.js';

declare const __VERSION__: string;

/** Newest first: the first is offered, the others are accepted when the server answers with them. */
export const PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];
/** The stateless revision: no initialize and no session; every request carries its version and client in `_meta`. */
const MODERN = '2026-07-28';

interface Pending {
  resolve(result: unknown): void;
  reject(error: MCPError): void;
  progress(progress: Progress): void;
}

const within = (ms: number): AbortSignal => (ms > 0 ? AbortSignal.timeout(ms) : new AbortController().signal);

/**
 * An MCP client over Streamable HTTP with nothing but `fetch`: 2026-07-28 statelessly when the server offers it
 * (`server/discover`), else a 2025 session (back to 2025-03-26), initialized on first use; a session the server forgot
 * (404) is replaced once, transparently.
 */
export class MCPClient {
  readonly url: string;
  readonly #options: MCPClientOptions;
  // HTTP and SSE live below; ids, timeouts, cancellation, progress and the session's lifecycle live here.
  readonly #transport: Transport;
  readonly #timeout: number;
  #ready: Promise<InitializeResult> | undefined;
  #tools: Tool[] | undefined;
  #nextId = 1;
  readonly #pending = new Map<unknown, Pending>();
  readonly #listeners: { [E in keyof MCPClientEvents]: Set<MCPClientEvents[E]> } = {
    notification: new Set(),
    error: new Set(),
  };

  constructor(url: string | URL, options: MCPClientOptions = {}) {
    this.url = String(url);
    this.#options = options;
    this.#transport = new HTTPTransport(this.url, options, {
      message: (message) => this.#receive(message),
      error: (error) => this.#emit('error', error),
    });
    this.#timeout = options.timeout ?? 30_000;
  }

  /** Listens to `notification` or `error`; returns the function that stops listening. */
  on<E extends keyof MCPClientEvents>(event: E, listener: MCPClientEvents[E]): () => void {
    this.#listeners[event].add(listener);
    return () => this.off(event, listener);
  }

  off<E extends keyof MCPClientEvents>(event: E, listener: MCPClientEvents[E]): void {
    this.#listeners[event].delete(listener);
  }

  /** Sends initialize and notifications/initialized (once; every request waits for it). */
  connect(): Promise<InitializeResult> {
    return (this.#ready ??= this.#init().catch((e: unknown) => {
      this.#ready = undefined;
      throw e;
    }));
  }

  getSessionId(): string | undefined {
    return this.#transport.sessionId;
  }

  /** The server's tools, cached; `refresh` asks again (so does a tools/list_changed notification). */
  async listTools(refresh = false): Promise<Tool[]> {
    if (this.#tools && !refresh) return this.#tools;
    const tools: Tool[] = [];
    let cursor: unknown;
    do {
      const page = await this.request<{ tools: Tool[]; nextCursor?: string }>('tools/list', cursor ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return (this.#tools = tools);
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
    const sid = this.#transport.sessionId;
    try {
      return (await this.#send(method, params, options)) as T;
    } catch (e) {
      if (!(e instanceof MCPError && e.isSessionExpired())) throw e;
      const hadStream = this.#transport.streaming;
      // Another request may have replaced the session already.
      if (this.#transport.sessionId === sid) this.#reset();
      await this.connect();
      if (hadStream) this.openStream().catch(noop);
      return (await this.#send(method, params, options)) as T;
    }
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.connect();
    await this.#transport.send({ jsonrpc: '2.0', method, params }, within(this.#timeout));
  }

  /**
   * Opens the GET stream for server messages outside any request. It reconnects when the server closes it (the
   * 2025-11-25 polling pattern), after the server's `retry` time, with Last-Event-ID. Resolves false when the server
   * offers no such stream (405).
   */
  async openStream(): Promise<boolean> {
    await this.connect();
    return this.#transport.openStream();
  }

  closeStream(): void {
    this.#transport.closeStream();
  }

  /** Ends the session: pending requests fail with CLOSED, DELETE tells the server (405 and errors are ignored). */
  async close(): Promise<void> {
    this.closeStream();
    for (const p of [...this.#pending.values()]) p.reject(new MCPError('CLOSED', 'The client was closed'));
    if (this.#transport.sessionId) await this.#transport.terminate(within(this.#timeout));
    this.#reset();
  }

  #reset(): void {
    this.closeStream();
    this.#transport.forget();
    this.#ready = this.#tools = undefined;
  }

  async #init(): Promise<InitializeResult> {
    this.#transport.forget();
    const first = this.#options.protocolVersion ?? MODERN;
    if (first === MODERN) {
      const discovered = await this.#discover();
      if (discovered) return discovered;
    }
    // A 2025 session: initialize, offering the newest 2025 version first.
    const offers = PROTOCOL_VERSIONS.filter((v) => v <= first && v < MODERN);
    for (let i = 0; ; i++) {
      try {
        const result = (await this.#send('initialize', {
          protocolVersion: offers[i],
          capabilities: {},
          clientInfo: this.#clientInfo(),
        })) as InitializeResult;
        if (!PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
          throw new MCPError('PROTOCOL', `The server speaks MCP ${result.protocolVersion}; this client speaks ${PROTOCOL_VERSIONS.join(', ')}`);
        }
        this.#transport.protocolVersion = result.protocolVersion;
        await this.#transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }, within(this.#timeout));
        return result;
      } catch (e) {
        // Some servers refuse a version they do not know instead of answering with theirs: offer the next one.
        const refused = e instanceof MCPError && (e.status === 400 || e.code === -32602) && /version/i.test(e.message);
        if (!refused || i + 1 >= offers.length) throw e;
      }
    }
  }

  /** 2026-07-28 when the server offers it; undefined (fall back to initialize) when it answers anything else. */
  async #discover(): Promise<InitializeResult | undefined> {
    this.#transport.protocolVersion = MODERN;
    try {
      const found = (await this.#send('server/discover', {})) as Message;
      if (Array.isArray(found.supportedVersions) && found.supportedVersions.includes(MODERN)) {
        // The server names itself in the result's _meta in this revision.
        const serverInfo = found.serverInfo ?? (isObject(found._meta) ? found._meta['io.modelcontextprotocol/serverInfo'] : undefined);
        return { protocolVersion: MODERN, capabilities: found.capabilities, serverInfo, instructions: found.instructions } as InitializeResult;
      }
    } catch (e) {
      // No answer at all is an outage, not a legacy server.
      if (e instanceof MCPError && e.isNetworkError()) throw e;
    }
    this.#transport.protocolVersion = undefined;
    return undefined;
  }

  /** One request: its answer arrives in the POST response (JSON or SSE), a resumed stream, or the GET stream. */
  #send(method: string, params: Message | undefined, options: RequestOptions = {}): Promise<unknown> {
    const id = this.#nextId++;
    const ctl = new AbortController();
    const { signal, onProgress } = options;
    const ms = options.timeout ?? this.#timeout;
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        clearTimeout(timer);
        if (ms > 0) timer = setTimeout(() => fail(new MCPError('TIMEOUT', `${method} got no answer within ${ms} ms`)), ms);
      };
      const settle = () => {
        const was = this.#pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        ctl.abort();
        return was;
      };
      const fail = (error: MCPError) => {
        if (!settle()) return;
        // Ask the server to stop (initialize must never be cancelled).
        if ((error.code === 'TIMEOUT' || error.code === 'ABORTED') && method !== 'initialize' && this.#transport.protocolVersion) {
          this.#transport
            .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: error.message } }, within(this.#timeout))
            .catch(noop);
        }
        reject(error);
      };
      const onAbort = () => fail(new MCPError('ABORTED', `${method} was aborted`, { cause: signal?.reason }));
      this.#pending.set(id, {
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
      const meta: Message = { ...(params?._meta as Message) };
      if (onProgress) meta.progressToken = id;
      // 2026-07-28: who asks, and in which version, travels with every request.
      if (this.#transport.protocolVersion === MODERN) {
        meta['io.modelcontextprotocol/protocolVersion'] = MODERN;
        meta['io.modelcontextprotocol/clientInfo'] = this.#clientInfo();
        meta['io.modelcontextprotocol/clientCapabilities'] = {};
      }
      const body = Object.keys(meta).length ? { ...params, _meta: meta } : params;
      // Settling aborts ctl: that tells the transport to stop waiting for the answer.
      this.#transport.send({ jsonrpc: '2.0', id, method, params: body }, ctl.signal).catch((e: unknown) => this.#pending.get(id)?.reject(asError(e)));
    });
  }

  #clientInfo(): Message {
    return { ...(this.#options.clientInfo ?? { name: 'browsermcp-client', version: __VERSION__ }) };
  }

  #receive(message: unknown): void {
    if (Array.isArray(message)) {
      for (const m of message) this.#receive(m);
      return;
    }
    if (!isObject(message)) return;
    const { id, method } = message;
    if (typeof method === 'string') {
      if (id !== undefined && id !== null) {
        // A request from the server: we answer ping and declare everything else unknown (we offer no capabilities).
        const answer = method === 'ping' ? { result: {} } : { error: { code: -32601, message: `Method not found: ${method}` } };
        this.#transport.send({ jsonrpc: '2.0', id, ...answer }, within(this.#timeout)).catch(noop);
        return;
      }
      const params = isObject(message.params) ? message.params : {};
      if (method === 'notifications/progress') this.#pending.get(params.progressToken)?.progress(params as unknown as Progress);
      if (method === 'notifications/tools/list_changed') this.#tools = undefined;
      this.#emit('notification', message as unknown as JSONRPCNotification);
      return;
    }
    const pending = this.#pending.get(id);
    const error = message.error;
    if (!isObject(error)) {
      pending?.resolve(message.result);
      return;
    }
    pending?.reject(new MCPError(typeof error.code === 'number' ? error.code : 'BAD_RESPONSE', String(error.message), { data: error.data }));
  }

  #emit<E extends keyof MCPClientEvents>(event: E, arg: Parameters<MCPClientEvents[E]>[0]): void {
    for (const listener of this.#listeners[event]) {
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
