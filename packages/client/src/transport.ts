import { MCPError } from './errors.js';
import { readSSE, SSEParser } from './sse.js';
import type { FetchLike, MCPClientOptions } from './types.js';

/** A JSON-RPC message as sent. */
export type Message = Record<string, unknown>;

export interface TransportEvents {
  /** A parsed message (or batch) from the server, not yet checked. */
  message(message: unknown): void;
  /** The GET stream failed for good; it is closed. */
  error(error: MCPError): void;
}

/**
 * Carries JSON-RPC messages; ids, timeouts and pending requests belong to the layer above. A request's answer arrives
 * through `TransportEvents.message`; the caller aborts the request's signal once it has it, which ends the wait.
 */
export interface Transport {
  /** Assigned by the server with its answer to initialize. */
  readonly sessionId: string | undefined;
  /** Sent with every request once negotiated. */
  protocolVersion: string | undefined;
  /** Whether the GET stream is open. */
  readonly streaming: boolean;
  send(message: Message, signal: AbortSignal): Promise<void>;
  /** Opens the GET stream for server messages outside any request; false when the server offers none. */
  openStream(): Promise<boolean>;
  closeStream(): void;
  /** Forgets the session id and protocol version, without telling the server. */
  forget(): void;
  /** Ends the session on the server (DELETE); a 405 or any failure is ignored. */
  terminate(signal: AbortSignal): Promise<void>;
}

/** Errors of Node's fetch (undici) for a pooled connection that was already closed by the server. */
const DEAD_SOCKET = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

export const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null;
export const noop = () => undefined;
export const asError = (e: unknown): MCPError =>
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

/** Streamable HTTP: every message is a POST answered with JSON or SSE; other server messages come on a GET stream. */
export class HTTPTransport implements Transport {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  readonly #url: string;
  // Kept, not copied: `headers` is read on every request.
  readonly #options: Pick<MCPClientOptions, 'fetch' | 'headers'>;
  readonly #events: TransportEvents;
  readonly #fetch: FetchLike;
  #stream: AbortController | undefined;

  constructor(url: string, options: Pick<MCPClientOptions, 'fetch' | 'headers'>, events: TransportEvents) {
    this.#url = url;
    this.#options = options;
    this.#events = events;
    this.#fetch = options.fetch ?? ((u, init) => fetch(u, init));
  }

  get streaming(): boolean {
    return this.#stream !== undefined;
  }

  async send(message: Message, signal: AbortSignal): Promise<void> {
    const res = await this.#http('POST', signal, message);
    if (message.method === 'initialize') this.sessionId = res.headers.get('mcp-session-id') ?? undefined;
    // Only a request (method and id) waits for an answer. Notifications and responses get 202; a request answered
    // with 202 waits for its answer on the GET stream.
    const id = message.method ? message.id : undefined;
    if (id === undefined || res.status === 202) return void res.body?.cancel().catch(noop);
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) return this.#consume(res, signal, true);
    if (!type.includes('json')) throw new MCPError('BAD_RESPONSE', `Unexpected content type "${type}"`, { status: res.status });
    this.#events.message(parse(await res.text()));
    // The caller aborts `signal` as soon as it has the answer.
    if (!signal.aborted) throw new MCPError('BAD_RESPONSE', `The response holds no answer to request ${id}`);
  }

  /** Reconnects when the server closes it (the 2025-11-25 polling pattern), after its `retry` time, with Last-Event-ID. */
  async openStream(): Promise<boolean> {
    if (this.#stream) return true;
    const ctl = (this.#stream = new AbortController());
    const drop = () => {
      if (this.#stream === ctl) this.#stream = undefined;
    };
    const res = await this.#http('GET', ctl.signal).catch((e: unknown) => {
      drop();
      throw e;
    });
    if (res.status === 405) {
      drop();
      return false;
    }
    this.#consume(res, ctl.signal, false).catch((e: unknown) => {
      if (this.#stream !== ctl) return;
      this.#stream = undefined;
      this.#events.error(asError(e));
    });
    return true;
  }

  closeStream(): void {
    this.#stream?.abort();
    this.#stream = undefined;
  }

  forget(): void {
    this.sessionId = this.protocolVersion = undefined;
  }

  async terminate(signal: AbortSignal): Promise<void> {
    await this.#http('DELETE', signal).catch(noop);
  }

  async #http(method: 'GET' | 'POST' | 'DELETE', signal: AbortSignal, body?: Message, lastEventId?: string): Promise<Response> {
    const sid = this.sessionId;
    const headers: Record<string, string> = {
      ...this.#options.headers,
      accept: method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream',
    };
    if (body) headers['content-type'] = 'application/json';
    if (sid) headers['mcp-session-id'] = sid;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    // 2026-07-28 mirrors the method (and a tool's name) in headers, for balancers that route on them.
    if (body && this.protocolVersion === '2026-07-28' && typeof body.method === 'string') {
      headers['mcp-method'] = body.method;
      const name = isObject(body.params) ? body.params.name : undefined;
      if (typeof name === 'string' && body.method === 'tools/call') headers['mcp-name'] = name;
    }
    if (lastEventId) headers['last-event-id'] = lastEventId;
    let res: Response;
    const send = () => this.#fetch(this.#url, { method, headers, body: body && JSON.stringify(body), signal });
    try {
      res = await send().catch((cause: unknown) => {
        // Node's fetch may hand out a pooled connection the server has just closed (it restarted): that request
        // never reached a server, so it is sent once more on a fresh connection. Browsers do this themselves.
        if (signal.aborted || !DEAD_SOCKET.has((cause as { cause?: { code?: string } }).cause?.code ?? '')) throw cause;
        return send();
      });
    } catch (cause) {
      throw signal.aborted
        ? new MCPError('TIMEOUT', `${method} ${this.#url} was stopped`, { cause })
        : new MCPError('NETWORK', `Cannot reach ${this.#url}: ${(cause as Error).message}`, { cause });
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
   * Reads an SSE response into `events.message` until `signal` aborts. When a request's stream ends (or breaks) before
   * its answer, it is resumed with GET + Last-Event-ID after the server's `retry` time (SEP-1699); the GET stream is
   * reconnected the same way until it is closed.
   */
  async #consume(res: Response, signal: AbortSignal, request: boolean): Promise<void> {
    let got = false;
    const parser = new SSEParser((event) => {
      got = true;
      if (event.event === 'message' && event.data) this.#events.message(parse(event.data));
    });
    const done = () => signal.aborted;
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
      if ((request && !parser.id) || failures >= 3) {
        throw new MCPError(
          'NETWORK',
          `The stream ended before ${request ? 'the answer' : 'it was closed'}${parser.id ? '' : ', with no event id to resume from'}`,
        );
      }
      for (;;) {
        await sleep(parser.retry ?? 1000, signal);
        if (done()) return;
        parser.reset();
        try {
          res = await this.#http('GET', signal, undefined, parser.id);
          break;
        } catch (e) {
          if (!(e instanceof MCPError && e.isNetworkError()) || ++failures >= 3) throw e;
        }
      }
      if (res.status === 405) throw new MCPError('NETWORK', 'The stream ended and the server offers no GET stream to resume it');
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
