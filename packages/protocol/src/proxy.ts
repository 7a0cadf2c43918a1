// The proxy protocol: JSON-RPC 2.0 over WebSocket between remote MCP clients (and extensions) and a daemon.
// Members are snake_case where the wire already is (extension_id, user_id…) and camelCase where it already is
// (accessToken): these names are the existing contract, not a style choice.
import { z } from 'zod';
import { ErrorCodes, type ErrorObject } from './errors';
import { sessionSettingsSchema } from './extension';
import { validate } from './validate';

export const ProxyMethods = {
  /** daemon → extension request (id "proxy:N"): prove who you are. */
  authenticate: 'authenticate',
  /** daemon → extension notification: the answer to `authenticate` was accepted. */
  authenticated: 'authenticated',
  /** client → daemon request, first on every connection. */
  mcpHandshake: 'mcp_handshake',
  listExtensions: 'list_extensions',
  connect: 'connect',
  disconnect: 'disconnect',
  /** daemon → client notification: the link to the extension changed state. */
  status: 'status',
  /** daemon → client notification: the link to the extension is gone for good. */
  disconnected: 'disconnected',
  /**
   * client → daemon notification, as in MCP: stop the tool call with this request id. The call answers Cancelled at
   * once, the browser stops its work, and the session's next call goes on.
   */
  cancelled: 'notifications/cancelled',
  /** client → daemon request: the kept browser states of one principal (a gateway's key), by name. */
  listStates: 'list_states',
  /** client → daemon request: close a kept browser state now (its tabs and browser context with it). */
  closeState: 'close_state',
} as const;

export type ProxyMethod = (typeof ProxyMethods)[keyof typeof ProxyMethods];

const nonEmptyString = z.string().min(1);
// Methods without params accept none, or an object whose members are ignored.
const noParamsSchema = z.object({}).optional();

export const authenticateParamsSchema = z
  .object({
    /** Present when the daemon requires a paired extension (pairing.ts): its nonce for this connection's proofs. */
    pairing: z.object({ nonce: nonEmptyString }).optional(),
  })
  .optional();
export type AuthenticateParams = z.infer<typeof authenticateParamsSchema>;
export const authenticateResultSchema = z.object({
  /** The extension's display name (shown by list_extensions). */
  name: nonEmptyString,
  /** The daemon user's token (a hosted daemon); empty or absent where the daemon asks for none. */
  accessToken: z.string().optional(),
  /**
   * The extension's nonce, the address it dialled and its proof (over both) that it holds the pairing secret, when
   * the daemon asked for pairing. Every frame after `authenticated` is then sealed (channel.ts).
   */
  pairing: z.object({ nonce: nonEmptyString, proof: nonEmptyString, address: nonEmptyString }).optional(),
});
export type AuthenticateResult = z.infer<typeof authenticateResultSchema>;

export const authenticatedParamsSchema = z
  .object({
    /** The id the daemon lists this extension under. */
    extension_id: nonEmptyString.optional(),
    /** The daemon's proof that it holds the pairing secret: the extension says hello only after checking it. */
    pairing: z.object({ proof: nonEmptyString }).optional(),
  })
  .optional();
export type AuthenticatedParams = z.infer<typeof authenticatedParamsSchema>;

export const mcpHandshakeParamsSchema = z.object({
  // May be empty: whether a token is required is the daemon's call, not the wire format's.
  accessToken: z.string(),
});
export type McpHandshakeParams = z.infer<typeof mcpHandshakeParamsSchema>;

export const mcpHandshakeResultSchema = z.object({
  authenticated: z.boolean(),
  /** null when the daemon runs without authentication. */
  user_id: z.string().nullable(),
  mcp_client_id: nonEmptyString,
});
export type McpHandshakeResult = z.infer<typeof mcpHandshakeResultSchema>;

export const listExtensionsParamsSchema = noParamsSchema;
export const extensionInfoSchema = z.object({
  id: nonEmptyString,
  name: z.string(),
  /** Whether the extension's WebSocket is open right now (it may be inside its reconnect grace period). */
  connected: z.boolean(),
  /** In a cluster: the daemon instance that holds the browser. */
  instance: z.string().optional(),
});
export type ExtensionInfo = z.infer<typeof extensionInfoSchema>;
export const listExtensionsResultSchema = z.object({ extensions: z.array(extensionInfoSchema) });
export type ListExtensionsResult = z.infer<typeof listExtensionsResultSchema>;

export const connectParamsSchema = z.object({
  extension_id: nonEmptyString,
  /**
   * Keep the session when this connection drops without `disconnect`, for the daemon's grace period, so that a
   * new connection (to this daemon or, in a cluster, another) can take it up again with `resume_session`.
   */
  resumable: z.boolean().optional(),
  /** Take up this session (a `session_id` an earlier connect returned) instead of opening a new one. */
  resume_session: nonEmptyString.optional(),
  /**
   * Drive the kept browser state of `owner` (within the caller's user: a gateway passes a hash of its client's key),
   * made if there is none: a session that outlives this connection by `ms` after its last user leaves, so the next
   * connection of that owner finds its pages, cookies and storage (`--keep-browser-state`).
   */
  keep_state: z
    .object({
      owner: nonEmptyString.max(200),
      ms: z
        .number()
        .int()
        .min(1)
        .max(7 * 24 * 3_600_000),
      /** Only take up a state that exists: none is answered StateNotFound instead of making one. */
      existing: z.boolean().optional(),
      /** Whose states it is among (a label of the gateway's key), for `list_states`. */
      principal: nonEmptyString.max(200).optional(),
      /** What `list_states` calls it (the handle the gateway gave its client). */
      name: nonEmptyString.max(200).optional(),
    })
    .optional(),
  /**
   * How the session's tools behave: its gateway's flags (--snapshot-max-chars, --caps, origin lists…), applied by the
   * daemon within its own settings, in its browser and in an extension alike. A taken-up session keeps its own.
   */
  settings: sessionSettingsSchema.optional(),
  /**
   * Whose memory budget the session's tabs count toward within the caller's user (the daemon's `--max-key-memory`):
   * a label of the gateway's key, the same for all of that key's sessions and states. Absent: the user's own budget.
   */
  account: nonEmptyString.max(200).optional(),
});
export type ConnectParams = z.infer<typeof connectParamsSchema>;
export const connectResultSchema = z.object({
  connection_id: nonEmptyString,
  extension_id: nonEmptyString,
  extension_name: z.string(),
  /** The daemon session the connection drives: what `resume_session` takes. */
  session_id: nonEmptyString.optional(),
  /** True when the connection took up an existing session (`resume_session`, or a kept state). */
  resumed: z.boolean().optional(),
});
export type ConnectResult = z.infer<typeof connectResultSchema>;

export const disconnectParamsSchema = z
  .object({
    /** Which connection to drop; the caller's current one when left out. */
    connection_id: nonEmptyString.optional(),
  })
  .optional();
export type DisconnectParams = z.infer<typeof disconnectParamsSchema>;
export const disconnectResultSchema = z.object({
  /** false when there was nothing to disconnect. */
  disconnected: z.boolean(),
});
export type DisconnectResult = z.infer<typeof disconnectResultSchema>;

export const listStatesParamsSchema = z.object({ principal: nonEmptyString.max(200) });
export type ListStatesParams = z.infer<typeof listStatesParamsSchema>;
export const keptStateInfoSchema = z.object({
  name: nonEmptyString,
  /** Calls are using it now. */
  in_use: z.boolean(),
  /** Unused: how long until it closes, in ms. */
  closes_in_ms: z.number().int().min(0).optional(),
});
export type KeptStateInfo = z.infer<typeof keptStateInfoSchema>;
export const listStatesResultSchema = z.object({ states: z.array(keptStateInfoSchema) });
export type ListStatesResult = z.infer<typeof listStatesResultSchema>;
export const closeStateParamsSchema = z.object({ owner: nonEmptyString.max(200) });
export type CloseStateParams = z.infer<typeof closeStateParamsSchema>;
export const closeStateResultSchema = z.object({
  /** false when the owner had no state (never made, closed already, or expired). */
  closed: z.boolean(),
});
export type CloseStateResult = z.infer<typeof closeStateResultSchema>;

/**
 * The client's link to its extension: `connecting` after connect, `connected` once commands can flow,
 * `reconnecting` while the extension's socket is down within its grace period (commands fail fast meanwhile),
 * `disconnected` when it is over (a `disconnected` notification says why).
 */
export const PROXY_CONNECTION_STATES = ['connecting', 'connected', 'reconnecting', 'disconnected'] as const;
export type ProxyConnectionState = (typeof PROXY_CONNECTION_STATES)[number];

export const statusParamsSchema = z.object({
  state: z.enum(PROXY_CONNECTION_STATES),
  connection_id: nonEmptyString.optional(),
  extension_id: nonEmptyString.optional(),
  /** Human-readable detail, e.g. "extension reconnecting, 4m 50s left". */
  message: z.string().optional(),
});
export type StatusParams = z.infer<typeof statusParamsSchema>;

export const disconnectedParamsSchema = z.object({
  connection_id: nonEmptyString.optional(),
  extension_id: nonEmptyString.optional(),
  reason: z.string(),
});
export type DisconnectedParams = z.infer<typeof disconnectedParamsSchema>;

export const cancelledParamsSchema = z.object({
  requestId: z.union([z.string(), z.number()]),
  reason: z.string().optional(),
});
export type CancelledParams = z.infer<typeof cancelledParamsSchema>;

/** Every proxy method with its kind and schemas, keyed by wire name. */
export const proxyMethodSchemas = {
  [ProxyMethods.authenticate]: {
    kind: 'request',
    params: authenticateParamsSchema,
    result: authenticateResultSchema,
  },
  [ProxyMethods.authenticated]: { kind: 'notification', params: authenticatedParamsSchema },
  [ProxyMethods.mcpHandshake]: {
    kind: 'request',
    params: mcpHandshakeParamsSchema,
    result: mcpHandshakeResultSchema,
  },
  [ProxyMethods.listExtensions]: {
    kind: 'request',
    params: listExtensionsParamsSchema,
    result: listExtensionsResultSchema,
  },
  [ProxyMethods.connect]: { kind: 'request', params: connectParamsSchema, result: connectResultSchema },
  [ProxyMethods.disconnect]: { kind: 'request', params: disconnectParamsSchema, result: disconnectResultSchema },
  [ProxyMethods.status]: { kind: 'notification', params: statusParamsSchema },
  [ProxyMethods.disconnected]: { kind: 'notification', params: disconnectedParamsSchema },
  [ProxyMethods.cancelled]: { kind: 'notification', params: cancelledParamsSchema },
  [ProxyMethods.listStates]: { kind: 'request', params: listStatesParamsSchema, result: listStatesResultSchema },
  [ProxyMethods.closeState]: { kind: 'request', params: closeStateParamsSchema, result: closeStateResultSchema },
} as const satisfies Record<ProxyMethod, { kind: 'request'; params: z.ZodType; result: z.ZodType } | { kind: 'notification'; params: z.ZodType }>;

type Specs = typeof proxyMethodSchemas;

export type ProxyRequestMethod = {
  [M in ProxyMethod]: Specs[M]['kind'] extends 'request' ? M : never;
}[ProxyMethod];
export type ProxyNotificationMethod = Exclude<ProxyMethod, ProxyRequestMethod>;

export type ProxyParams<M extends ProxyMethod> = z.output<Specs[M]['params']>;
export type ProxyResult<M extends ProxyRequestMethod> = Specs[M] extends { result: infer S extends z.ZodType } ? z.output<S> : never;

export type ProxyParseResult<T> = { ok: true; value: T } | { ok: false; error: ErrorObject };

const PROXY_METHOD_NAMES: ReadonlySet<string> = new Set(Object.values(ProxyMethods));

export function isProxyMethod(method: string): method is ProxyMethod {
  return PROXY_METHOD_NAMES.has(method);
}

export function isProxyRequestMethod(method: string): method is ProxyRequestMethod {
  return isProxyMethod(method) && proxyMethodSchemas[method].kind === 'request';
}

/**
 * Validates the params of a proxy method. Failures are -32602 (invalid params) naming the member, e.g.
 * `"params.extension_id" is required`; a name that is not a proxy method is -32601.
 */
export function parseProxyParams<M extends ProxyMethod>(method: M, params: unknown): ProxyParseResult<ProxyParams<M>> {
  if (!isProxyMethod(method)) return unknownMethod(method, 'a proxy method');
  const checked = validate(proxyMethodSchemas[method].params, params, 'params');
  if (!checked.ok) return { ok: false, error: { code: ErrorCodes.InvalidParams, message: checked.message } };
  // The map is indexed by M, but TypeScript cannot follow a generic index through the lookup.
  return { ok: true, value: checked.value as ProxyParams<M> };
}

/**
 * Validates the result a peer sent for a proxy request. A malformed result is the peer's bug, which the receiver
 * can only report as -32603 (internal error).
 */
export function parseProxyResult<M extends ProxyRequestMethod>(method: M, result: unknown): ProxyParseResult<ProxyResult<M>> {
  if (!isProxyRequestMethod(method)) return unknownMethod(method, 'a proxy request method');
  const spec: { result: z.ZodType } = proxyMethodSchemas[method];
  const checked = validate(spec.result, result, 'result');
  if (!checked.ok) return { ok: false, error: { code: ErrorCodes.InternalError, message: checked.message } };
  return { ok: true, value: checked.value as ProxyResult<M> };
}

function unknownMethod(method: string, expected: string): { ok: false; error: ErrorObject } {
  return { ok: false, error: { code: ErrorCodes.MethodNotFound, message: `"${String(method)}" is not ${expected}` } };
}
