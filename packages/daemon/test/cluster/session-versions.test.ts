import { expect, it } from 'vitest';
import {
  CLOCK_SKEW_MS,
  currentVersion,
  VERSION_LIFETIME_MS,
  endedVersion,
  lapsedVersion,
  nextEpoch,
  outdatedOwnVersions,
  parseSessionKey,
  sessionKey,
  type SessionVersion,
} from '../../src/cluster/session-versions';

const NOW = 1_000_000_000;

/** A's version of session S: opened at `opening`, at `epoch`, holding until `notAfter`. */
function version(
  instance: string,
  revision: number,
  epoch: number,
  more: { believed?: boolean; ended?: true; opening?: number; notAfter?: number } = {},
): SessionVersion {
  const { believed = true, ended, opening = 1, notAfter = NOW + 60_000 } = more;
  return {
    instance,
    key: sessionKey(instance, 'S'),
    revision,
    proven: believed,
    believed,
    record: { sessionId: 'S', executorId: 'laptop', servedBy: instance, opening, epoch, notAfter, ...(ended ? { ended } : {}) },
  };
}

it('keys a version by its instance and session, and reads the key back', () => {
  expect(sessionKey('east-1', 'a.b')).toBe('s.east-1.YS5i');
  expect(parseSessionKey('s.east-1.YS5i')).toEqual({ instance: 'east-1', sessionId: 'a.b' });
  for (const other of ['s.YS5i', 't.east-1.YS5i', 's..YS5i', 's.a.b.c']) expect(parseSessionKey(other)).toBeUndefined();
  // One spelling per id: "YR" reads as "a" too, but "a" is "YQ".
  expect(parseSessionKey('s.b.YQ')).toEqual({ instance: 'b', sessionId: 'a' });
  expect(parseSessionKey('s.b.YR')).toBeUndefined();
});

it('takes the believed version of the latest opening, then the highest epoch, then the first written; one not believed never counts', () => {
  const a = version('a', 10, 1);
  const b = version('b', 12, 2);
  const c = version('c', 11, 2);
  expect(currentVersion([a, b])).toBe(b);
  expect(currentVersion([b, c, a])).toBe(c);
  // The session opened again under its id: its first version outranks every version of before, whatever its epoch.
  const reopened = version('a', 20, 1, { opening: 2 });
  expect(currentVersion([b, reopened])).toBe(reopened);
  // Another daemon's own version with any epoch or opening, unproven: not the session.
  const forged = version('m', 99, Number.MAX_SAFE_INTEGER, { believed: false, opening: Number.MAX_SAFE_INTEGER });
  expect(currentVersion([a, forged])).toBe(a);
  expect(currentVersion([forged])).toBeUndefined();
  expect(lapsedVersion([forged])).toBeUndefined();
  // An epoch that is not a safe whole number counts as none.
  expect(currentVersion([a, { ...version('x', 13, 0), record: { ...b.record, epoch: 1e300 } }])).toBe(a);
  // A proven version whose time ran out is not the session, but cleanup goes by it (its server died), unless ended.
  const lapsed = { ...b, believed: false };
  expect(currentVersion([lapsed])).toBeUndefined();
  expect(lapsedVersion([lapsed])).toBe(lapsed);
  expect(lapsedVersion([{ ...version('b', 12, 2, { ended: true }), believed: false }])).toBeUndefined();
});

it('ends a session above every version of its opening, holding until each of them ran out; says which own versions may go', () => {
  const a = version('a', 10, 1, { notAfter: NOW + 900_000 });
  const b = version('b', 12, 3, { notAfter: NOW + 100_000 });
  expect(nextEpoch([a, b], a.record)).toBe(4);
  const tombstone = endedVersion([a, b], b.record, 'c', NOW);
  expect(tombstone).toEqual({
    sessionId: 'S',
    executorId: 'laptop',
    servedBy: 'c',
    opening: 1,
    epoch: 4,
    notAfter: NOW + 900_000 + CLOCK_SKEW_MS,
    ended: true,
  });
  // Whatever the versions' time, a tombstone holds a whole lifetime: the id's next opening comes after it.
  expect(endedVersion([b], b.record, 'c', NOW).notAfter).toBe(NOW + VERSION_LIFETIME_MS + 2 * CLOCK_SKEW_MS);
  const ended: SessionVersion = { ...version('c', 14, 4), record: tombstone };
  const all = [a, b, ended];
  expect(currentVersion(all)).toBe(ended);
  expect(outdatedOwnVersions(all, 'a', NOW)).toEqual([a]);
  expect(outdatedOwnVersions(all, 'b', NOW)).toEqual([b]);
  // The tombstone stays, even alone, until its time ran out: a kept copy of a's version could still be written back.
  expect(outdatedOwnVersions(all, 'c', NOW)).toEqual([]);
  expect(outdatedOwnVersions([ended], 'c', NOW)).toEqual([]);
  const later = NOW + 900_000 + 2 * CLOCK_SKEW_MS + 1;
  expect(outdatedOwnVersions([ended], 'c', later)).toEqual([ended]);
  // Nor while a version it outranks is still in the bucket (an instance that never came back): that one would count again.
  expect(outdatedOwnVersions([a, ended], 'c', later)).toEqual([]);
  // The current version of a live session is not outdated, nor one of this instance's that ran out (the sweep ends
  // it, or renews it while a client drives it); one no key vouches for is.
  expect(outdatedOwnVersions([a, b], 'b', NOW)).toEqual([]);
  expect(outdatedOwnVersions([a], 'a', NOW + 900_000 + CLOCK_SKEW_MS + 1)).toEqual([]);
  const unproven = { ...a, proven: false, believed: false };
  expect(outdatedOwnVersions([unproven], 'a', NOW)).toEqual([unproven]);
});
