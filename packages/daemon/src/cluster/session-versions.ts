import { fromToken, token } from './names.js';
import type { SignedRecord } from './record-signatures.js';

// A session's record lives under the key of the instance that wrote it, `s.<instance>.<session>`, which NATS lets
// only that instance write (nats-config's permissions): one daemon's credentials can neither change nor delete a
// record another wrote. A take-up does not move a record: the instance taking the session up writes its own version,
// one epoch higher, and ending a session another instance's version still names writes an ended one (a tombstone).
// The newest believed version says what the session is; each instance deletes its own versions once they are
// outdated (ClusterSweep), and its tombstones once no other version is left.

/** A session's record as one instance wrote it: its epoch (signed with it) orders an instance's take-up after the last. */
export interface StoredSession extends SignedRecord {
  readonly epoch?: number;
  /** An ended session: no version of an epoch below this one counts any more. */
  readonly ended?: true;
}

/** One instance's version of a session, read from the store. */
export interface SessionVersion {
  readonly instance: string;
  readonly key: string;
  readonly revision: number;
  readonly record: StoredSession;
  /** Signed by the instance of its key, as the one serving it, and proven (KvRouterStore). */
  readonly believed: boolean;
}

export const sessionKey = (instanceId: string, sessionId: string): string => `s.${instanceId}.${token(sessionId)}`;

/** The filter of every instance's version of a session, or of every session when none is named. */
export const sessionVersionsFilter = (sessionId?: string): string => `s.*.${sessionId === undefined ? '*' : token(sessionId)}`;

/** The instance and session a version's key names; undefined for a key of another shape. */
export function parseSessionKey(key: string): { instance: string; sessionId: string } | undefined {
  const parts = key.split('.');
  if (parts.length !== 3 || parts[0] !== 's' || !parts[1] || !parts[2]) return undefined;
  return { instance: parts[1], sessionId: fromToken(parts[2]) };
}

export const epochOf = (record: StoredSession): number => (typeof record.epoch === 'number' && Number.isSafeInteger(record.epoch) ? record.epoch : 0);

/**
 * The version that says what the session is: the believed one of the highest epoch (of two, the one written first,
 * whose revision is lower: every instance reads the same order); undefined when none is believed.
 */
export function currentVersion(versions: readonly SessionVersion[]): SessionVersion | undefined {
  let current: SessionVersion | undefined;
  for (const version of versions) {
    if (!version.believed) continue;
    if (
      current === undefined ||
      epochOf(version.record) > epochOf(current.record) ||
      (epochOf(version.record) === epochOf(current.record) && version.revision < current.revision)
    ) {
      current = version;
    }
  }
  return current;
}

/**
 * The version cleanup goes by where none is believed (a record another daemon wrote under its own key, or whose seal
 * does not open here): the newest, unless it is ended.
 */
export function newestUnbelieved(versions: readonly SessionVersion[]): SessionVersion | undefined {
  const newest = versions.reduce<SessionVersion | undefined>((a, b) => (a === undefined || b.revision > a.revision ? b : a), undefined);
  return newest?.record.ended === true ? undefined : newest;
}

/** This instance's tombstone of a session: an epoch above `current`'s, no private part. */
export function endedVersion(current: StoredSession, instanceId: string): StoredSession {
  return { sessionId: current.sessionId, executorId: current.executorId, servedBy: instanceId, epoch: epochOf(current) + 1, ended: true };
}

/**
 * Which of this instance's own versions are outdated and may go: one another version of a higher epoch (or its equal
 * written first) supersedes, and its own tombstone once no other version is left to outrank.
 */
export function outdatedOwnVersions(versions: readonly SessionVersion[], instanceId: string): SessionVersion[] {
  const current = currentVersion(versions);
  return versions.filter((version) => {
    if (version.instance !== instanceId) return false;
    if (current === undefined) return false;
    if (version !== current) return true;
    return version.record.ended === true && versions.length === 1;
  });
}
