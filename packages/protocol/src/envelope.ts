// The v2 envelope: what the daemon and the extension exchange over their one WebSocket.
import { z } from 'zod';
import { ErrorCodes, errorObject, errorObjectSchema, type ErrorObject } from './errors';
import { checkBuilt, isPlainObject, parseJsonText, validate } from './validate';

export const ENVELOPE_TYPES = ['command', 'response', 'event'] as const;
export type EnvelopeType = (typeof ENVELOPE_TYPES)[number];

const nonEmptyString = z.string().min(1);

// Fields every envelope carries. tabId is a string on the wire: puppeteer target ids are strings already, and the
// extension sends Chrome's numeric tab ids as String(tab.id) (and reads them back with Number(tabId)). One type
// keeps ownership maps and comparisons simple: 5 and "5" can never name two different tabs.
const common = {
  /** Correlates a response with its command; unique per message. */
  wireId: nonEmptyString,
  /** Opaque id of whatever caused this message upstream (e.g. a mapped proxy request id), for tracing. */
  originId: nonEmptyString.optional(),
  sessionId: nonEmptyString,
  name: nonEmptyString,
  tabId: nonEmptyString.optional(),
};

/**
 * Files travel inside envelopes as base64, so a browser on another machine (the person's, behind the extension) never
 * reads the daemon's disk and the daemon never trusts a browser with a path: the daemon reads an upload under its
 * file policy and sends the bytes with the command; a tool's saved output comes back with the response and the
 * daemon writes it.
 */
export const inputFileSchema = z.object({
  /** The path the tool was given, so the tool finds the bytes for it. */
  path: nonEmptyString,
  /** The file name the page sees (the path's last part). */
  name: nonEmptyString,
  /** A MIME type such as application/pdf; "" when unknown. */
  mimeType: z.string(),
  /** The contents, base64. */
  data: z.string(),
});
export type InputFile = z.infer<typeof inputFileSchema>;

export const outputFileSchema = z.object({
  /**
   * Where the tool saves it: a name the model gave, relative to the client's workspace where the session has one
   * (else the daemon's output directory); a generated name (`generated`), relative to the output directory.
   */
  name: nonEmptyString,
  generated: z.boolean().optional(),
  /** The contents, base64. */
  data: z.string(),
});
export type OutputFile = z.infer<typeof outputFileSchema>;

export const commandEnvelopeSchema = z.object({
  ...common,
  type: z.literal('command'),
  payload: z.unknown(),
  /** Files the command's tool reads (an upload), read by the daemon under its file policy. */
  files: z.array(inputFileSchema).optional(),
  /**
   * Where a file name the model gave this command lands, as the answer shows it (the client's workspace, or the
   * output directory; "": names show as given, relative to the workspace). Sent with a command that saves a named file.
   */
  namedOutputDir: z.string().optional(),
});
export type CommandEnvelope = z.infer<typeof commandEnvelopeSchema>;

export const eventEnvelopeSchema = z.object({ ...common, type: z.literal('event'), payload: z.unknown() });
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

// A response carries exactly one of data / error (not payload); the other member is refused, not stripped.
export const successResponseEnvelopeSchema = z.object({
  ...common,
  type: z.literal('response'),
  data: z.unknown(),
  error: z.never().optional(),
  /** Files the tool saved (a screenshot with a filename, a PDF), for the daemon to write to its output directory. */
  files: z.array(outputFileSchema).optional(),
});
export type SuccessResponseEnvelope = z.infer<typeof successResponseEnvelopeSchema>;

export const errorResponseEnvelopeSchema = z.object({
  ...common,
  type: z.literal('response'),
  error: errorObjectSchema,
  data: z.never().optional(),
});
export type ErrorResponseEnvelope = z.infer<typeof errorResponseEnvelopeSchema>;

export const responseEnvelopeSchema = z.union([successResponseEnvelopeSchema, errorResponseEnvelopeSchema]);
export type ResponseEnvelope = z.infer<typeof responseEnvelopeSchema>;

// A plain union: zod's discriminatedUnion refuses two members with the same tag, and both response shapes are
// "response". The TypeScript type still narrows on `type`, and parseEnvelope switches on it itself.
export const envelopeSchema = z.union([commandEnvelopeSchema, responseEnvelopeSchema, eventEnvelopeSchema]);
export type Envelope = z.infer<typeof envelopeSchema>;

export type EnvelopeParseResult =
  | { ok: true; envelope: Envelope }
  | {
      ok: false;
      error: { code: typeof ErrorCodes.ParseError | typeof ErrorCodes.InvalidRequest; message: string };
      /** The bad envelope's wireId when it could be read, so a pending command can fail now instead of timing out. */
      wireId: string | null;
    };

/**
 * Parses one envelope from JSON text (bad JSON is -32700) or an already-parsed value. An invalid envelope is
 * -32600 with a message naming the field, e.g. `"sessionId" is required`.
 */
export function parseEnvelope(input: unknown): EnvelopeParseResult {
  let value = input;
  if (typeof input === 'string') {
    const parsed = parseJsonText(input);
    if (!parsed.ok) return { ok: false, error: { code: ErrorCodes.ParseError, message: parsed.message }, wireId: null };
    value = parsed.value;
  }
  if (!isPlainObject(value)) return invalid('an envelope must be an object', null);
  const rawWireId = value.wireId;
  const wireId = typeof rawWireId === 'string' && rawWireId !== '' ? rawWireId : null;

  const type = value.type;
  let schema: z.ZodType<Envelope>;
  if (type === 'command') schema = commandEnvelopeSchema;
  else if (type === 'event') schema = eventEnvelopeSchema;
  else if (type === 'response') {
    const hasData = 'data' in value;
    const hasError = 'error' in value;
    if (hasData && hasError) return invalid('a response must carry "data" or "error", not both', wireId);
    if (!hasData && !hasError) return invalid('a response must carry "data" or "error"', wireId);
    schema = hasError ? errorResponseEnvelopeSchema : successResponseEnvelopeSchema;
  } else {
    return invalid('"type" must be "command", "response" or "event"', wireId);
  }
  const checked = validate(schema, value);
  return checked.ok ? { ok: true, envelope: checked.value } : invalid(checked.message, wireId);
}

function invalid(message: string, wireId: string | null): EnvelopeParseResult {
  return { ok: false, error: { code: ErrorCodes.InvalidRequest, message }, wireId };
}

/** A fresh wireId. crypto.randomUUID exists in Node 20, browsers (secure contexts) and extension workers. */
export function generateWireId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof crypto?.randomUUID !== 'function') {
    throw new Error('globalThis.crypto.randomUUID is not available: pass a wireId explicitly');
  }
  return crypto.randomUUID();
}

export interface EnvelopeInit {
  sessionId: string;
  name: string;
  /** `undefined` becomes null: JSON.stringify would drop the member and the envelope would be invalid. */
  payload: unknown;
  tabId?: string;
  originId?: string;
}

// Optional members are left out rather than set to undefined, so the object equals its own JSON round trip.
function withOptional<T extends object>(
  envelope: T,
  from: { tabId?: string | undefined; originId?: string | undefined },
): T & { tabId?: string; originId?: string } {
  const out: T & { tabId?: string; originId?: string } = { ...envelope };
  if (from.originId !== undefined) out.originId = from.originId;
  if (from.tabId !== undefined) out.tabId = from.tabId;
  return out;
}

/** A command envelope; `wireId` defaults to a fresh UUID. Throws a TypeError naming the field if one is invalid. */
export function createCommand(init: EnvelopeInit, wireId: string = generateWireId()): CommandEnvelope {
  const { sessionId, name, payload } = init;
  const command = withOptional({ wireId, sessionId, type: 'command' as const, name, payload: payload === undefined ? null : payload }, init);
  return checkBuilt(commandEnvelopeSchema, command, 'createCommand');
}

/** An event envelope (console message, dialog, navigation…) for the session that owns the tab. */
export function createEvent(init: EnvelopeInit, wireId: string = generateWireId()): EventEnvelope {
  const { sessionId, name, payload } = init;
  const event = withOptional({ wireId, sessionId, type: 'event' as const, name, payload: payload === undefined ? null : payload }, init);
  return checkBuilt(eventEnvelopeSchema, event, 'createEvent');
}

/** The success response to `command`: echoes wireId, sessionId, name, tabId and originId. */
export function responseFor(command: CommandEnvelope, data: unknown): SuccessResponseEnvelope {
  const { wireId, sessionId, name } = command;
  const response = withOptional({ wireId, sessionId, type: 'response' as const, name, data: data === undefined ? null : data }, command);
  return checkBuilt(successResponseEnvelopeSchema, response, 'responseFor');
}

/**
 * The error response to `command`. Takes any `{code, message, data?}`, a ProtocolError included; only those three
 * members are copied (use toErrorObject to turn an arbitrary thrown value into one).
 */
export function errorResponseFor(command: CommandEnvelope, error: ErrorObject): ErrorResponseEnvelope {
  const { wireId, sessionId, name } = command;
  const response = withOptional({ wireId, sessionId, type: 'response' as const, name, error: errorObject(error.code, error.message, error.data) }, command);
  return checkBuilt(errorResponseEnvelopeSchema, response, 'errorResponseFor');
}
