import { z } from 'zod';
import { isPlainObject } from './validate';

/**
 * Every error code on our wires. The first five are JSON-RPC 2.0's own. Ours live in the server range
 * -32000..-32099 but start at -32010: the MCP SDK already uses -32000 (connection closed) and -32001 (request
 * timeout), and the MCP spec uses -32002 (resource not found), so a client never mistakes one of ours for theirs.
 * Codes are wire contract: add new ones at the end, never renumber.
 */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,

  /** The browser (extension socket or CDP connection) is gone; commands fail fast instead of waiting. */
  BrowserDisconnected: -32010,
  SessionNotFound: -32011,
  /** The named tab does not exist (or no longer does). */
  TabNotFound: -32012,
  /** The named tab exists but belongs to another session. */
  TabOwnedByOtherSession: -32013,
  Timeout: -32014,
  Unauthorized: -32015,
  Forbidden: -32016,
  RateLimited: -32017,
  /** The executor could not run a command at all (tool failures are `isError` tool results, not this). */
  CommandFailed: -32018,
  /** The executor cannot provide the requested browser context (e.g. a named context on the extension). */
  ContextUnsupported: -32019,
  /** The proxy `connect` named an extension the daemon does not know. */
  ExtensionNotFound: -32020,
  /** The caller cancelled the command (MCP `notifications/cancelled`, or it went away) before it ended. */
  Cancelled: -32021,
  /** A browser state handle names no state of the caller's: never made, closed, or expired after its idle time. */
  StateNotFound: -32022,
} as const;

export type ErrorCodeName = keyof typeof ErrorCodes;
export type ErrorCode = (typeof ErrorCodes)[ErrorCodeName];
export type StandardErrorCode =
  | typeof ErrorCodes.ParseError
  | typeof ErrorCodes.InvalidRequest
  | typeof ErrorCodes.MethodNotFound
  | typeof ErrorCodes.InvalidParams
  | typeof ErrorCodes.InternalError;

const STANDARD_CODES: ReadonlySet<number> = new Set<StandardErrorCode>([
  ErrorCodes.ParseError,
  ErrorCodes.InvalidRequest,
  ErrorCodes.MethodNotFound,
  ErrorCodes.InvalidParams,
  ErrorCodes.InternalError,
]);

const NAMES_BY_CODE: ReadonlyMap<number, ErrorCodeName> = new Map((Object.keys(ErrorCodes) as ErrorCodeName[]).map((name) => [ErrorCodes[name], name]));

/** True for the five codes JSON-RPC 2.0 predefines. */
export function isStandardErrorCode(code: number): code is StandardErrorCode {
  return STANDARD_CODES.has(code);
}

/** True for any integer in JSON-RPC's implementation-defined server range -32099..-32000, ours or not. */
export function isServerErrorCode(code: number): boolean {
  return Number.isInteger(code) && code >= -32099 && code <= -32000;
}

/** The constant's name for a code we define ("TabNotFound"), or undefined for anything else. */
export function errorCodeName(code: number): ErrorCodeName | undefined {
  return NAMES_BY_CODE.get(code);
}

const HTTP_STATUS: ReadonlyMap<number, number> = new Map<ErrorCode, number>([
  [ErrorCodes.ParseError, 400],
  [ErrorCodes.InvalidRequest, 400],
  [ErrorCodes.InvalidParams, 400],
  [ErrorCodes.MethodNotFound, 404],
  [ErrorCodes.SessionNotFound, 404],
  [ErrorCodes.TabNotFound, 404],
  [ErrorCodes.ExtensionNotFound, 404],
  [ErrorCodes.StateNotFound, 404],
  [ErrorCodes.TabOwnedByOtherSession, 409],
  [ErrorCodes.Unauthorized, 401],
  [ErrorCodes.Forbidden, 403],
  [ErrorCodes.RateLimited, 429],
  [ErrorCodes.Timeout, 504],
  // nginx's "client closed request": whoever would read the answer has gone.
  [ErrorCodes.Cancelled, 499],
  [ErrorCodes.BrowserDisconnected, 503],
  // The request asked for something this executor cannot do: retrying the same request will not help.
  [ErrorCodes.ContextUnsupported, 400],
]);

/** The HTTP status to answer with when a code ends an HTTP request (e.g. `POST /commands`); 500 by default. */
export function httpStatusForErrorCode(code: number): number {
  return HTTP_STATUS.get(code) ?? 500;
}

/** The `{code, message, data?}` object of a JSON-RPC error and of an error envelope. */
export const errorObjectSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type ErrorObject = z.infer<typeof errorObjectSchema>;

/** Builds an error object, leaving `data` out when undefined so the JSON has no `"data": undefined` surprises. */
export function errorObject(code: number, message: string, data?: unknown): ErrorObject {
  return data === undefined ? { code, message } : { code, message, data };
}

export interface ProtocolErrorOptions {
  data?: unknown;
  cause?: unknown;
}

/** An error that carries a wire code, so whoever catches it can answer the peer without guessing. */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data?: unknown;

  constructor(code: number, message: string, options: ProtocolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProtocolError';
    this.code = code;
    if (options.data !== undefined) this.data = options.data;
  }

  toJSON(): ErrorObject {
    return errorObject(this.code, this.message, this.data);
  }

  /** Rebuilds an error received from a peer, e.g. to throw it from a pending request. */
  static fromObject(error: ErrorObject): ProtocolError {
    return new ProtocolError(error.code, error.message, { data: error.data });
  }
}

/**
 * Turns anything thrown into a wire error object. A ProtocolError keeps its code, and so does an error named
 * "ProtocolError" (one from a second copy of this package, where instanceof fails) or a plain `{code, message}`
 * object (an error object received from a peer). Everything else becomes InternalError with its message; other
 * errors' numeric `code`s (DOMException has them) are not ours and are not kept.
 */
export function toErrorObject(error: unknown): ErrorObject {
  if (error instanceof ProtocolError) return error.toJSON();
  if (isPlainObject(error) || (error instanceof Error && error.name === 'ProtocolError')) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    if (typeof code === 'number' && Number.isInteger(code) && typeof message === 'string') {
      return errorObject(code, message, data);
    }
  }
  let message: string;
  if (error instanceof Error) message = error.message;
  else if (isPlainObject(error) && typeof error.message === 'string') message = error.message;
  else message = String(error);
  return errorObject(ErrorCodes.InternalError, message);
}
