import { fromToken, token } from './names.js';
import type { SessionRecord } from '../router/store.js';
import type { SignedRecord } from './record-signatures.js';

// A session's record lives under the key of the instance that wrote it, `s.<instance>.<session>`, which NATS lets
// only that instance write (nats-config's permissions): one daemon's credentials can neither change nor delete a
// record another wrote. A take-up does not move a record: the instance taking the session up writes its own version,
// one epoch higher; ending a session writes an ended version (a tombstone) above every other. The newest believed
// version says what the session is. A version holds only until its `notAfter`, which its server renews while it
// serves the session: an old version a daemon's seed kept (of a session its instance once served) cannot bring an
// ended session back once the tombstone, which outlives every version it outranks, is gone. Each instance deletes its
// own versions once outdated (ClusterSweep).

/** How long a version holds; its server renews it when less than half is left. */
export const VERSION_LIFETIME_MS = 10 * 60_000;
/** How far the daemons' clocks may differ: a version holds this long past its `notAfter`. */
export const CLOCK_SKEW_MS = 30_000;

/** A session's record as one instance wrote it, signed with what orders it and bounds it in time. */
export interface StoredSession extends SignedRecord {
  /** Which opening of the session id it is (1, then one above every proven one seen): a session opened again under its id outranks every version of before. */
  readonly opening?: number;
  /** Take-ups since it was opened: each writes a version one epoch above the current one. */
  readonly epoch?: number;
  /** Until when (ms) the version holds, unless its server renews it. */
  readonly notAfter?: number;
  /** An ended session: no version below this one counts any more. */
  readonly ended?: true;
}

/** One instance's version of a session, read from the store. */
export interface SessionVersion {
  readonly instance: string;
  readonly key: string;
  readonly revision: number;
  readonly record: StoredSession;
  /** Signed by the instance of its key, as the one serving it, proven and sealed for it (KvRouterStore). */
  readonly proven: boolean;
  /** Proven and within its time (without signing, a store outside a cluster: every version). */
  readonly believed: boolean;
}

/** A session's current record as read: whether its server signed and proved it, its revision and its opening. */
export interface VerifiedSession {
  readonly record: SessionRecord;
  readonly verified: boolean;
  readonly revision: number;
  readonly opening: number;
}

export const sessionKey = (instanceId: string, sessionId: string): string => `s.${instanceId}.${token(sessionId)}`;

/** The filter of every instance's version of a session, or of every session when none is named. */
export const sessionVersionsFilter = (sessionId?: string): string => `s.*.${sessionId === undefined ? '*' : token(sessionId)}`;

/** The instance and session a version's key names; undefined for a key of another shape. */
export function parseSessionKey(key: string): { instance: string; sessionId: string } | undefined {
  const parts = key.split('.');
  if (parts.length !== 3 || parts[0] !== 's' || !parts[1] || !parts[2]) return undefined;
  const sessionId = fromToken(parts[2]);
  // One spelling per session: a key of another spelling of the same id (base64url has a few) is nobody's.
  return token(sessionId) === parts[2] ? { instance: parts[1], sessionId } : undefined;
}

const whole = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);
export const epochOf = (record: StoredSession): number => whole(record.epoch);
export const openingOf = (record: StoredSession): number => whole(record.opening);
export const notAfterOf = (record: StoredSession): number => whole(record.notAfter);

/** Whether a version's time is past, by more than clocks differ. */
export const expired = (record: StoredSession, now: number): boolean => now > notAfterOf(record) + CLOCK_SKEW_MS;

/** Whether `a` outranks `b`: a later opening, or the same opening at a higher epoch, or the same written first. */
function outranks(a: SessionVersion, b: SessionVersion): boolean {
  const [x, y] = [a.record, b.record];
  if (openingOf(x) !== openingOf(y)) return openingOf(x) > openingOf(y);
  if (epochOf(x) !== epochOf(y)) return epochOf(x) > epochOf(y);
  return a.revision < b.revision;
}

/** The version that says what the session is: the believed one that outranks the others; undefined when none is. */
export function currentVersion(versions: readonly SessionVersion[]): SessionVersion | undefined {
  return top(versions.filter((version) => version.believed));
}

/**
 * The version cleanup goes by where none is believed: the top proven one whose time ran out (its server died and no
 * one renewed it), unless it is ended. A version no instance proved (another daemon's writing) is nobody's session.
 */
export function lapsedVersion(versions: readonly SessionVersion[]): SessionVersion | undefined {
  const lapsed = top(versions.filter((version) => version.proven));
  return lapsed?.record.ended === true ? undefined : lapsed;
}

/** The version a session goes by: its current one, or where none is believed, the one that ran out (lapsedVersion). */
export function topVersion(versions: readonly SessionVersion[]): SessionVersion | undefined {
  return currentVersion(versions) ?? lapsedVersion(versions);
}

function top(versions: readonly SessionVersion[]): SessionVersion | undefined {
  return versions.reduce<SessionVersion | undefined>((a, b) => (a === undefined || outranks(b, a) ? b : a), undefined);
}

/** The next version of the session after `current` (a take-up, or the end): one epoch above every proven one of its opening. */
export function nextEpoch(versions: readonly SessionVersion[], current: StoredSession): number {
  const opening = openingOf(current);
  const epochs = versions.filter((v) => v.proven && openingOf(v.record) === opening).map((v) => epochOf(v.record));
  return Math.max(epochOf(current), ...epochs) + 1;
}

/**
 * This instance's tombstone of a session: above every version of its opening, no private part, holding until every
 * version it outranks has run out (so that none of them, kept and written back, counts again).
 */
export function endedVersion(versions: readonly SessionVersion[], current: StoredSession, instanceId: string, now: number): StoredSession {
  const opening = openingOf(current);
  // At least a whole lifetime: the browser's daemon remembers this opening ended for as long (PeerRequests), and an
  // opening of the id after it must come after this one, not start again at 1.
  const lastOut = Math.max(
    now + VERSION_LIFETIME_MS + CLOCK_SKEW_MS,
    ...versions.filter((v) => v.proven && openingOf(v.record) <= opening).map((v) => notAfterOf(v.record)),
  );
  return {
    sessionId: current.sessionId,
    executorId: current.executorId,
    servedBy: instanceId,
    opening,
    epoch: nextEpoch(versions, current),
    notAfter: lastOut + CLOCK_SKEW_MS,
    ended: true,
  };
}

/**
 * Which of this instance's own versions are outdated and may go: one no key of this instance vouches for any more, one
 * another version outranks, and its tombstone once its time ran out and no version it outranks is left in the bucket
 * (one kept and written back would count again without it). Its own version that ran out without being outranked stays
 * for the sweep to end (or, where a client still drives it, to renew).
 */
export function outdatedOwnVersions(versions: readonly SessionVersion[], instanceId: string, now: number): SessionVersion[] {
  // Outranked by the top proven version, believed or not, ended or not: one under a tombstone that ran out is too.
  const current = currentVersion(versions) ?? top(versions.filter((version) => version.proven));
  return versions.filter((version) => {
    if (version.instance !== instanceId) return false;
    if (!version.proven || (current !== undefined && version !== current && outranks(current, version))) return true;
    if (version.record.ended !== true) return false;
    return expired(version.record, now) && !versions.some((other) => other !== version && other.proven && outranks(version, other));
  });
}
