import { z } from 'zod';
import { ErrorCodes, errorObject, errorObjectSchema } from './errors';
import { checkBuilt, isPlainObject, parseJsonText, validate } from './validate';
import { nestsDeeperThan, TOO_DEEP } from './json-depth';

export const JSONRPC_VERSION = '2.0';

const versionSchema = z.literal(JSONRPC_VERSION);

/** Request ids. JSON has no NaN or Infinity, and zod's number() refuses them too. */
export const jsonRpcIdSchema = z.union([z.string(), z.number()]);
export type JsonRpcId = z.infer<typeof jsonRpcIdSchema>;

/** JSON-RPC 2.0 allows only structured params: by name (object) or by position (array). */
export const jsonRpcParamsSchema = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]);
export type JsonRpcParams = z.infer<typeof jsonRpcParamsSchema>;

export const jsonRpcRequestSchema = z.object({
  jsonrpc: versionSchema,
  id: jsonRpcIdSchema,
  method: z.string(),
  params: jsonRpcParamsSchema.optional(),
});
export type JsonRpcRequest = z.infer<typeof jsonRpcRequestSchema>;

export const jsonRpcNotificationSchema = z.object({
  jsonrpc: versionSchema,
  method: z.string(),
  params: jsonRpcParamsSchema.optional(),
  // Refused, not stripped: with an id it is a request, and a union must not read it as a notification.
  id: z.never().optional(),
});
export type JsonRpcNotification = z.infer<typeof jsonRpcNotificationSchema>;

export const jsonRpcSuccessResponseSchema = z.object({
  jsonrpc: versionSchema,
  id: jsonRpcIdSchema,
  result: z.unknown(),
  // Anything with a method is a request or notification, so a union must never read it as a response.
  method: z.never().optional(),
  error: z.never().optional(),
});
export type JsonRpcSuccessResponse = z.infer<typeof jsonRpcSuccessResponseSchema>;

export const jsonRpcErrorResponseSchema = z.object({
  jsonrpc: versionSchema,
  // null when the request's id could not be read (parse error, invalid request).
  id: z.union([z.string(), z.number(), z.null()]),
  error: errorObjectSchema,
  method: z.never().optional(),
  result: z.never().optional(),
});
export type JsonRpcErrorResponse = z.infer<typeof jsonRpcErrorResponseSchema>;

export const jsonRpcResponseSchema = z.union([jsonRpcSuccessResponseSchema, jsonRpcErrorResponseSchema]);
export type JsonRpcResponse = z.infer<typeof jsonRpcResponseSchema>;

export const jsonRpcMessageSchema = z.union([jsonRpcRequestSchema, jsonRpcNotificationSchema, jsonRpcSuccessResponseSchema, jsonRpcErrorResponseSchema]);
export type JsonRpcMessage = z.infer<typeof jsonRpcMessageSchema>;

export type ParsedMessage =
  | { ok: true; kind: 'request'; message: JsonRpcRequest }
  | { ok: true; kind: 'notification'; message: JsonRpcNotification }
  | { ok: true; kind: 'response'; message: JsonRpcResponse };

export interface MessageParseFailure {
  ok: false;
  error: { code: typeof ErrorCodes.ParseError | typeof ErrorCodes.InvalidRequest; message: string };
  /** The offending message's id when it could be read, else null: the id to answer the error with. */
  id: JsonRpcId | null;
}

export type SingleMessageParseResult = ParsedMessage | MessageParseFailure;

export interface ParsedBatch {
  ok: true;
  kind: 'batch';
  /** One result per element, in order: a batch with some bad elements still runs the good ones. */
  items: SingleMessageParseResult[];
}

export type MessageParseResult = SingleMessageParseResult | ParsedBatch;

/**
 * Parses one JSON-RPC 2.0 message or batch. A string is read as JSON text (a bad one is -32700); anything else is
 * taken as an already-parsed value. A value that is not a valid message is -32600 with a message naming the field.
 * An array is a batch whose elements are parsed one by one; an empty array is -32600, as the spec says.
 */
export function parseMessage(input: unknown): MessageParseResult {
  let value = input;
  if (typeof input === 'string') {
    const parsed = parseJsonText(input);
    if (!parsed.ok) return failure(ErrorCodes.ParseError, parsed.message, null);
    value = parsed.value;
  }
  if (nestsDeeperThan(value)) return failure(ErrorCodes.InvalidRequest, TOO_DEEP, null);
  if (Array.isArray(value)) {
    if (value.length === 0) return failure(ErrorCodes.InvalidRequest, 'a batch must not be empty', null);
    return { ok: true, kind: 'batch', items: value.map((item: unknown) => parseSingle(item)) };
  }
  return parseSingle(value);
}

function parseSingle(value: unknown): SingleMessageParseResult {
  if (!isPlainObject(value)) {
    return failure(ErrorCodes.InvalidRequest, 'a JSON-RPC message must be an object', null);
  }
  const rawId = value.id;
  const id = typeof rawId === 'string' || typeof rawId === 'number' ? rawId : null;

  // Decide the kind from which members are present, then validate against that kind alone, so the error names
  // the field that is wrong instead of "matches none of four shapes".
  if ('method' in value) {
    if ('id' in value) {
      const checked = validate(jsonRpcRequestSchema, value);
      return checked.ok ? { ok: true, kind: 'request', message: checked.value } : invalid(checked.message, id);
    }
    const checked = validate(jsonRpcNotificationSchema, value);
    return checked.ok ? { ok: true, kind: 'notification', message: checked.value } : invalid(checked.message, id);
  }
  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  if (hasResult && hasError) return invalid('a response must carry "result" or "error", not both', id);
  if (!hasResult && !hasError) {
    return invalid('a JSON-RPC message needs "method" (request, notification) or "result"/"error" (response)', id);
  }
  const checked = validate(hasError ? jsonRpcErrorResponseSchema : jsonRpcSuccessResponseSchema, value);
  return checked.ok ? { ok: true, kind: 'response', message: checked.value } : invalid(checked.message, id);
}

function failure(code: MessageParseFailure['error']['code'], message: string, id: JsonRpcId | null): MessageParseFailure {
  return { ok: false, error: { code, message }, id };
}

function invalid(message: string, id: JsonRpcId | null): MessageParseFailure {
  return failure(ErrorCodes.InvalidRequest, message, id);
}

export function jsonRpcRequest(id: JsonRpcId, method: string, params?: JsonRpcParams): JsonRpcRequest {
  const request: JsonRpcRequest = { jsonrpc: JSONRPC_VERSION, id, method };
  if (params !== undefined) request.params = params;
  return checkBuilt(jsonRpcRequestSchema, request, 'jsonRpcRequest');
}

export function jsonRpcNotification(method: string, params?: JsonRpcParams): JsonRpcNotification {
  const notification: JsonRpcNotification = { jsonrpc: JSONRPC_VERSION, method };
  if (params !== undefined) notification.params = params;
  return checkBuilt(jsonRpcNotificationSchema, notification, 'jsonRpcNotification');
}

/** A success response. `undefined` becomes null: JSON.stringify would drop the member and break the response. */
export function jsonRpcResult(id: JsonRpcId, result: unknown): JsonRpcSuccessResponse {
  return checkBuilt(jsonRpcSuccessResponseSchema, { jsonrpc: JSONRPC_VERSION, id, result: result === undefined ? null : result }, 'jsonRpcResult');
}

/** An error response; `id` is null when the request's id could not be read. */
export function jsonRpcError(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcErrorResponse {
  return checkBuilt(jsonRpcErrorResponseSchema, { jsonrpc: JSONRPC_VERSION, id, error: errorObject(code, message, data) }, 'jsonRpcError');
}
