// Every error the daemon throws on purpose. Each one carries:
// - `code`, a stable string such as 'BMCP_ERR_TAB_OWNED': branch on it, never on the message;
// - `statusCode`, the HTTP status a transport answers with (from the protocol's httpStatusForErrorCode);
// - `rpcCode`, the JSON-RPC code from ErrorCodes, for envelopes and JSON-RPC error responses.
// Messages are read by the model at the other end, so they say what happened and what to do next.
import createError from '@fastify/error';
import { ErrorCodes, errorObject, httpStatusForErrorCode, toErrorObject, type ErrorObject, type PersonStop } from '@browsermcp/protocol';

export interface DaemonError extends Error {
  readonly code: string;
  readonly statusCode: number;
  /** The JSON-RPC code (one of ErrorCodes) this error is on a wire. */
  readonly rpcCode: number;
  /** Extra detail for the wire error's `data` member; set on errors that an executor reported. */
  readonly data?: unknown;
}

export interface DaemonErrorConstructor<C extends string, Args extends unknown[]> {
  new (...args: Args): DaemonError & { readonly code: C };
  (...args: Args): DaemonError & { readonly code: C };
  readonly prototype: DaemonError & { readonly code: C };
}

/** Marks our errors in a way that survives two copies of this package (instanceof would not). */
const DAEMON_ERROR = Symbol.for('browsermcp.daemon.error');

type Cause = { cause: unknown };

/** How each kind of error is made, by code, with the arguments its message is made from (see madeAgainWith). */
const MAKERS = new Map<string, (...args: unknown[]) => DaemonError>();
const ARGS = Symbol('browsermcp.daemon.error.args');

function defineError<C extends string, Args extends unknown[]>(code: C, message: string, rpcCode: number): DaemonErrorConstructor<C, Args> {
  const Base = createError<C, number, Args>(code, message, httpStatusForErrorCode(rpcCode));
  Object.defineProperty(Base.prototype, 'rpcCode', { value: rpcCode, enumerable: false });
  Object.defineProperty(Base.prototype, DAEMON_ERROR, { value: true, enumerable: false });
  // Each error keeps the arguments of its message, so that it can be made again for a reader who knows one of them by
  // another name; called with or without `new`, as createError's classes are.
  function DefinedError(...args: Args): DaemonError {
    const error = new Base(...args) as unknown as DaemonError;
    Object.defineProperty(error, ARGS, { value: args, enumerable: false });
    return error;
  }
  DefinedError.prototype = Base.prototype;
  MAKERS.set(code, DefinedError as (...args: unknown[]) => DaemonError);
  // createError's declared instance type lacks rpcCode; the prototype now has it.
  return DefinedError as unknown as DaemonErrorConstructor<C, Args>;
}

/**
 * The same error made again with `to` for the argument `from` (a session the router names by its namespaced id, and
 * its caller by its own): a new error of the same kind, code and status, its message made from the arguments, never
 * edited. Anything else comes back as it was.
 */
export function madeAgainWith(error: unknown, from: string, to: string): unknown {
  if (!isDaemonError(error)) return error;
  const args = (error as unknown as { [ARGS]?: unknown[] })[ARGS];
  const make = MAKERS.get(error.code);
  if (!args?.includes(from) || make === undefined) return error;
  return make(...args.map((arg) => (arg === from ? to : arg)));
}

export const InvalidArgumentError = defineError<'BMCP_ERR_INVALID_ARGUMENT', [detail: string]>('BMCP_ERR_INVALID_ARGUMENT', '%s', ErrorCodes.InvalidParams);

export const RouterClosedError = defineError<'BMCP_ERR_ROUTER_CLOSED', []>(
  'BMCP_ERR_ROUTER_CLOSED',
  'the daemon is shutting down; reconnect once it is back',
  // 503: nothing is wrong with the request, the service is going away.
  ErrorCodes.BrowserDisconnected,
);

export const SessionExistsError = defineError<'BMCP_ERR_SESSION_EXISTS', [sessionId: string]>(
  'BMCP_ERR_SESSION_EXISTS',
  'session %s is already open',
  ErrorCodes.InvalidRequest,
);

export const TooManySessionsError = defineError<'BMCP_ERR_TOO_MANY_SESSIONS', [userId: string, max: number]>(
  'BMCP_ERR_TOO_MANY_SESSIONS',
  'user %s already has %d sessions open, the most this daemon allows (--max-sessions-per-user); close one (DELETE /sessions/<id>) and try again',
  ErrorCodes.RateLimited,
);

export const TooManyStatesError = defineError<'BMCP_ERR_TOO_MANY_STATES', [count: number, max: number]>(
  'BMCP_ERR_TOO_MANY_STATES',
  'this browsermcp keeps %d browser states, the most it may (--max-browser-states %d): close one of yours with browser_state_close, or wait until an unused one closes by itself, then try again',
  ErrorCodes.RateLimited,
);

export const SessionInUseError = defineError<'BMCP_ERR_SESSION_IN_USE', [sessionId: string, instanceId: string]>(
  'BMCP_ERR_SESSION_IN_USE',
  'session %s is driven by a live client connection on daemon %s of this cluster; disconnect that client first (a client that dropped frees it at once)',
  ErrorCodes.InvalidRequest,
);

export const SessionNotFoundError = defineError<'BMCP_ERR_SESSION_NOT_FOUND', [sessionId: string]>(
  'BMCP_ERR_SESSION_NOT_FOUND',
  'session %s is not open (it was never opened, or it was closed)',
  ErrorCodes.SessionNotFound,
);

export const StateNotFoundError = defineError<'BMCP_ERR_STATE_NOT_FOUND', []>(
  'BMCP_ERR_STATE_NOT_FOUND',
  'no kept browser state of this owner (never made, closed, or expired)',
  ErrorCodes.StateNotFound,
);

export const SessionClosedError = defineError<'BMCP_ERR_SESSION_CLOSED', [sessionId: string]>(
  'BMCP_ERR_SESSION_CLOSED',
  'session %s was closed before this command ran',
  ErrorCodes.SessionNotFound,
);

export const TabNotFoundError = defineError<'BMCP_ERR_TAB_NOT_FOUND', [tabId: string]>(
  'BMCP_ERR_TAB_NOT_FOUND',
  'tab %s does not exist or was closed; use one of the tabs this session has opened',
  ErrorCodes.TabNotFound,
);

export const TabOwnedError = defineError<'BMCP_ERR_TAB_OWNED', [tabId: string]>(
  'BMCP_ERR_TAB_OWNED',
  'tab %s is owned by another session',
  ErrorCodes.TabOwnedByOtherSession,
);

export const CommandTimeoutError = defineError<'BMCP_ERR_TIMEOUT', [command: string, after: string]>(
  'BMCP_ERR_TIMEOUT',
  '%s timed out after %s and was stopped; the next answer says what was done to free its tab. Take a snapshot to see the page as it is now',
  ErrorCodes.Timeout,
);

export const CommandCancelledError = defineError<'BMCP_ERR_CANCELLED', [command: string]>(
  'BMCP_ERR_CANCELLED',
  '%s was cancelled by its caller',
  ErrorCodes.Cancelled,
);

export const SessionStoppedError = defineError<'BMCP_ERR_SESSION_STOPPED', [how: string]>(
  'BMCP_ERR_SESSION_STOPPED',
  'the person stopped this agent in their browser (%s): its session and tabs are closed. Do not carry on with this task unless the person asks you again',
  ErrorCodes.SessionNotFound,
);

/** How the person stopped an agent, in SessionStoppedError's words; undefined when another instance heard it. */
export function howStopped(via: PersonStop | undefined): string {
  if (via === 'popup') return 'the Stop button in the browsermcp popup';
  if (via === 'debugger_bar')
    return `Cancel on Chrome's "started debugging this browser" bar; browsermcp stays paused there until they press Connect in its popup`;
  return "in the browsermcp popup, or with Cancel on Chrome's debugging bar";
}

export const BrowserPausedError = defineError<'BMCP_ERR_BROWSER_PAUSED', [timeLeft: string]>(
  'BMCP_ERR_BROWSER_PAUSED',
  "the person paused browsermcp in their browser (Disconnect in its popup, or Cancel on Chrome's debugging bar); ask them to press Connect in the browsermcp popup, then try again. Their tabs are kept for %s",
  ErrorCodes.BrowserDisconnected,
);

export const BrowserDisconnectedError = defineError<'BMCP_ERR_BROWSER_DISCONNECTED', [what: 'disconnected' | 'is disconnected', timeLeft: string]>(
  'BMCP_ERR_BROWSER_DISCONNECTED',
  'the browser %s; it has %s to reconnect before its sessions are closed. Try again in a moment',
  ErrorCodes.BrowserDisconnected,
);

export const BrowserNotConnectedError = defineError<'BMCP_ERR_BROWSER_NOT_CONNECTED', [executorId: string]>(
  'BMCP_ERR_BROWSER_NOT_CONNECTED',
  'browser %s is not connected',
  ErrorCodes.BrowserDisconnected,
);

export const BrowserReconnectedError = defineError<'BMCP_ERR_BROWSER_RECONNECTED', [command: string]>(
  'BMCP_ERR_BROWSER_RECONNECTED',
  'the browser reconnected while %s ran and its answer was lost; try again',
  ErrorCodes.BrowserDisconnected,
);

export const CommandFailedError = defineError<'BMCP_ERR_COMMAND_FAILED', [command: string, reason: string, options?: Cause]>(
  'BMCP_ERR_COMMAND_FAILED',
  '%s could not be run: %s',
  ErrorCodes.CommandFailed,
);

export const BrowserLaunchError = defineError<'BMCP_ERR_BROWSER_LAUNCH', [reason: string]>(
  'BMCP_ERR_BROWSER_LAUNCH',
  'the browser could not be started: %s',
  ErrorCodes.BrowserDisconnected,
);

const ExecutorErrorClass = defineError<'BMCP_ERR_EXECUTOR', [message: string]>('BMCP_ERR_EXECUTOR', '%s', ErrorCodes.CommandFailed);
export type ExecutorError = InstanceType<typeof ExecutorErrorClass>;

/**
 * The error an executor answered a command with. Its message, code and data are the executor's own: it knows
 * best what went wrong (a tab closed under it, a context it cannot make). Branch on `rpcCode` for these.
 */
export function executorError(error: ErrorObject): ExecutorError {
  const result = new ExecutorErrorClass(error.message);
  Object.defineProperty(result, 'rpcCode', { value: error.code, enumerable: false });
  Object.defineProperty(result, 'statusCode', { value: httpStatusForErrorCode(error.code), enumerable: true });
  if (error.data !== undefined) Object.defineProperty(result, 'data', { value: error.data, enumerable: true });
  return result;
}

export function isDaemonError(error: unknown): error is DaemonError {
  return typeof error === 'object' && error !== null && DAEMON_ERROR in error;
}

/** Any thrown value as a wire error `{code, message, data?}`; a daemon error keeps its rpcCode. */
export function toWireError(error: unknown): ErrorObject {
  if (isDaemonError(error)) return errorObject(error.rpcCode, error.message, error.data);
  return toErrorObject(error);
}

export const UnauthorizedError = defineError<'BMCP_ERR_UNAUTHORIZED', [reason: string]>('BMCP_ERR_UNAUTHORIZED', '%s', ErrorCodes.Unauthorized);

export const ForbiddenError = defineError<'BMCP_ERR_FORBIDDEN', [reason: string]>('BMCP_ERR_FORBIDDEN', '%s', ErrorCodes.Forbidden);

export const ExtensionNotFoundError = defineError<'BMCP_ERR_EXTENSION_NOT_FOUND', [extensionId: string]>(
  'BMCP_ERR_EXTENSION_NOT_FOUND',
  'no browser "%s" is connected for you; call list_extensions to see the ones you can use',
  ErrorCodes.ExtensionNotFound,
);

export const BadRequestError = defineError<'BMCP_ERR_BAD_REQUEST', [reason: string]>('BMCP_ERR_BAD_REQUEST', '%s', ErrorCodes.InvalidRequest);

export const BrowserUnavailableError = defineError<'BMCP_ERR_BROWSER_UNAVAILABLE', [executorId: string, instanceId: string]>(
  'BMCP_ERR_BROWSER_UNAVAILABLE',
  'browser %s is unavailable: the daemon instance %s that held it is gone. If the browser reconnects to another instance within its grace period its sessions go on there; try again in a moment',
  ErrorCodes.BrowserDisconnected,
);

export const InstanceRejoiningError = defineError<'BMCP_ERR_INSTANCE_REJOINING', [executorId: string, since: string, instanceId: string]>(
  'BMCP_ERR_INSTANCE_REJOINING',
  'browser %s is not reachable yet: NATS came back %s ago and the daemon instance %s that holds it has not rejoined the cluster since. Try again in a moment',
  ErrorCodes.BrowserDisconnected,
);

export const ClusterUnavailableError = defineError<'BMCP_ERR_CLUSTER_UNAVAILABLE', [reason: string]>(
  'BMCP_ERR_CLUSTER_UNAVAILABLE',
  'the cluster store (NATS) cannot be reached: %s. Sessions need it; try again once NATS is back',
  ErrorCodes.BrowserDisconnected,
);

/** A daemon error as it crosses to another instance of a cluster: its string code travels with it. */
export interface CrossedError {
  readonly code: string;
  readonly rpcCode: number;
  readonly message: string;
  readonly data?: unknown;
}

export function crossError(error: unknown): CrossedError {
  const wire = toWireError(error);
  return {
    code: isDaemonError(error) ? error.code : 'BMCP_ERR_INTERNAL',
    rpcCode: wire.code,
    message: wire.message,
    ...(wire.data !== undefined ? { data: wire.data } : {}),
  };
}

/** The daemon error another instance threw, rebuilt with its code, so callers here branch on it as on their own. */
export function crossedError(error: CrossedError): DaemonError {
  const result = executorError({ code: error.rpcCode, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) });
  Object.defineProperty(result, 'code', { value: error.code, enumerable: true });
  return result;
}
