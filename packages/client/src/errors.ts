/**
 * What went wrong, when it was not the server's JSON-RPC error (whose numeric code is kept as is):
 * - `TIMEOUT`: no answer within the timeout (the request was cancelled on the server)
 * - `NETWORK`: fetch failed, the connection broke, or a stream ended before its answer and could not be resumed
 * - `UNAUTHORIZED`: HTTP 401 or 403 (missing or wrong key, origin not allowed)
 * - `SESSION_EXPIRED`: HTTP 404 for our session id, still so after one new initialize
 * - `BAD_RESPONSE`: the server answered something that is not MCP (bad JSON, wrong content type, no answer)
 * - `HTTP`: any other HTTP error without a JSON-RPC error body
 * - `ABORTED`: the caller's AbortSignal fired
 * - `CLOSED`: `close()` was called while the request was pending
 * - `PROTOCOL`: no protocol version both sides speak
 */
export type MCPErrorKind = 'TIMEOUT' | 'NETWORK' | 'UNAUTHORIZED' | 'SESSION_EXPIRED' | 'BAD_RESPONSE' | 'HTTP' | 'ABORTED' | 'CLOSED' | 'PROTOCOL';

/** JSON-RPC error codes a client meets most (the spec's and the SDK's). */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

export class MCPError extends Error {
  override readonly name = 'MCPError';
  /** A JSON-RPC error code from the server, or the kind of failure on the client side. */
  readonly code: number | MCPErrorKind;
  /** HTTP status, when the error came with an HTTP response. */
  readonly status: number | undefined;
  /** The JSON-RPC error's `data`. */
  readonly data: unknown;

  constructor(code: number | MCPErrorKind, message: string, extra: { status?: number; data?: unknown; cause?: unknown } = {}) {
    super(message, { cause: extra.cause });
    this.code = code;
    this.status = extra.status;
    this.data = extra.data;
  }

  /** The tool (or method) does not exist. Servers differ: -32601, or -32602 saying the tool is unknown/not found. */
  isToolNotFound(): boolean {
    return this.code === -32601 || (this.code === -32602 && /unknown tool|tool\b.*\bnot found/i.test(this.message));
  }

  isTimeout(): boolean {
    return this.code === 'TIMEOUT';
  }

  isSessionExpired(): boolean {
    return this.code === 'SESSION_EXPIRED';
  }

  isNetworkError(): boolean {
    return this.code === 'NETWORK';
  }

  isUnauthorized(): boolean {
    return this.code === 'UNAUTHORIZED';
  }
}
