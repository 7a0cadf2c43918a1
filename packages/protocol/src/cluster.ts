// What the daemons of one cluster say to each other over NATS. Instances of a cluster may run different releases
// during a rolling upgrade, so this contract changes as the others do: new fields optional.
import { z } from 'zod';
import { holdProofSchema } from './browser-key';
import { commandEnvelopeSchema, eventEnvelopeSchema, responseEnvelopeSchema } from './envelope';
import { validate, type Validated } from './validate';

const id = z.string().min(1);

/** A daemon error as it crosses instances: its stable string code travels with the JSON-RPC one. */
export const crossedErrorSchema = z.object({
  code: id,
  rpcCode: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});

/**
 * Which session opened on which browser: all an `open` says. The browser's instance reads the rest (user, agent,
 * settings) from the session's signed record in the store, sealed there: none of it crosses in clear.
 */
const openedSessionSchema = z.object({ sessionId: id, executorId: id });

/** What one instance asks the instance that holds a browser (request/reply on that instance's subject). */
export const clusterRequestSchema = z.discriminatedUnion('op', [
  /** Run a command; the reply carries the browser's response. */
  z.object({ op: z.literal('send'), executorId: id, command: commandEnvelopeSchema, timeoutMs: z.number().int().min(1) }),
  /** A session opened on the browser. */
  z.object({ op: z.literal('open'), session: openedSessionSchema }),
  /** A session closed: close its tabs. */
  z.object({ op: z.literal('close'), executorId: id, sessionId: id }),
  /** The sender stopped waiting for a command (no reply expected). */
  z.object({ op: z.literal('cancel'), wireId: id, reason: z.enum(['cancelled', 'timeout']) }),
  /** Is the instance still there (asked while commands wait on it)? */
  z.object({ op: z.literal('ping') }),
  /** Does a live client connection on the instance drive the session (asked before another instance takes it up)? */
  z.object({ op: z.literal('driving'), sessionId: id }),
  /**
   * Is the browser connected to the instance now (asked of each instance whose directory entry says so when more
   * than one does: a daemon's credentials must not take a browser another instance holds by claiming it)?
   */
  z.object({ op: z.literal('holding'), browserId: id }),
  /**
   * An event of a browser the sender holds, for a session whose client the receiving instance serves (no reply). Sent
   * to that instance alone, on a subject that names the sender: an event is believed only from the browser's holder.
   */
  z.object({ op: z.literal('event'), executorId: id, event: eventEnvelopeSchema }),
]);
export type ClusterRequest = z.infer<typeof clusterRequestSchema>;

export const clusterReplySchema = z.union([
  z.object({ ok: z.literal(true), response: responseEnvelopeSchema.optional(), driving: z.boolean().optional(), holding: z.boolean().optional() }),
  z.object({ ok: z.literal(false), error: crossedErrorSchema }),
]);
export type ClusterReply = z.infer<typeof clusterReplySchema>;

/** A session ended on `instanceId` (published to every instance). */
export const sessionEndedSchema = z.object({
  instanceId: id,
  sessionId: id,
  reason: z.enum(['closed', 'browser-gone', 'stopped']),
});
export type SessionEnded = z.infer<typeof sessionEndedSchema>;

/** Which instance holds a browser, as the cluster's directory (a KV bucket with a TTL) keeps it. */
export const browserEntrySchema = z.object({
  id,
  instanceId: id,
  kind: z.enum(['local', 'extension']),
  name: z.string(),
  /** The user whose token the extension authenticated with; null for a daemon's own browser and without auth. */
  userId: id.nullable(),
  /** False while the browser is away within its grace period (or paused by the person). */
  connected: z.boolean(),
  /**
   * The directory revision at which this instance took the browser (its first entry since the browser connected
   * there); absent in that first entry, whose own revision it is. Of two instances' entries for a browser away from
   * both, the later claim holds; while both say connected, each instance is asked (the `holding` request).
   */
  claim: z.number().int().nonnegative().optional(),
  /**
   * An extension browser's latest proof that this instance holds it, signed by the browser (browser-key.ts). Another
   * instance believes an extension's entry only with a valid one that is fresh enough; among the entries of a
   * browser away from all, the newest proof holds it.
   */
  hold: holdProofSchema.optional(),
  /**
   * An extension browser's user, as proven by the instance that holds it, which checked the extension's access token
   * (an HMAC under a key derived from the daemons' shared token secret): without it, where the daemons share one,
   * another instance does not list the browser for that user.
   */
  userProof: z.string().max(128).optional(),
  /**
   * An extension browser's user and name, with its `hold` and `userProof` (whose signatures would confirm a guessed
   * user), sealed (AES-256-GCM under a key derived from the daemons' shared token secret, bound to the browser and the
   * instance): the entry then says `userId: null` and `name: ""` and has no `hold` or `userProof` in clear, and only a
   * daemon reads whose browser it is.
   */
  sealed: z.string().max(4096).optional(),
});
export type BrowserEntry = z.infer<typeof browserEntrySchema>;

/** A live instance of the cluster, as its heartbeat keeps it in the directory. */
export const instanceEntrySchema = z.object({ instanceId: id, startedAt: z.number(), version: z.string() });
export type InstanceEntry = z.infer<typeof instanceEntrySchema>;

export function parseClusterRequest(value: unknown): Validated<ClusterRequest> {
  return validate(clusterRequestSchema, value);
}
export function parseClusterReply(value: unknown): Validated<ClusterReply> {
  return validate(clusterReplySchema, value);
}
export function parseSessionEnded(value: unknown): Validated<SessionEnded> {
  return validate(sessionEndedSchema, value);
}
export function parseBrowserEntry(value: unknown): Validated<BrowserEntry> {
  return validate(browserEntrySchema, value);
}
export function parseInstanceEntry(value: unknown): Validated<InstanceEntry> {
  return validate(instanceEntrySchema, value);
}
