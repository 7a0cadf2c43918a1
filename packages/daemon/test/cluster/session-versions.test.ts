import { expect, it } from 'vitest';
import {
  currentVersion,
  endedVersion,
  newestUnbelieved,
  outdatedOwnVersions,
  parseSessionKey,
  sessionKey,
  type SessionVersion,
} from '../../src/cluster/session-versions';

const version = (instance: string, revision: number, epoch: number, believed = true, ended?: true): SessionVersion => ({
  instance,
  key: sessionKey(instance, 'S'),
  revision,
  believed,
  record: { sessionId: 'S', executorId: 'laptop', servedBy: instance, epoch, ...(ended ? { ended } : {}) },
});

it('keys a version by its instance and session, and reads the key back', () => {
  expect(sessionKey('east-1', 'a.b')).toBe('s.east-1.YS5i');
  expect(parseSessionKey('s.east-1.YS5i')).toEqual({ instance: 'east-1', sessionId: 'a.b' });
  for (const other of ['s.YS5i', 't.east-1.YS5i', 's..YS5i', 's.a.b.c']) expect(parseSessionKey(other)).toBeUndefined();
});

it('takes the believed version of the highest epoch, the first written of two equal ones; one not believed never counts', () => {
  const a = version('a', 10, 1);
  const b = version('b', 12, 2);
  const c = version('c', 11, 2);
  expect(currentVersion([a, b])).toBe(b);
  expect(currentVersion([b, c, a])).toBe(c);
  // Another daemon's own version with any epoch, unproven: not the session.
  const forged = version('m', 99, Number.MAX_SAFE_INTEGER, false);
  expect(currentVersion([a, forged])).toBe(a);
  expect(currentVersion([forged])).toBeUndefined();
  // An epoch that is not a safe whole number counts as none.
  expect(currentVersion([a, { ...version('x', 13, 0), record: { ...b.record, epoch: 1e300 } }])).toBe(a);
  // Cleanup goes by the newest where none is believed, and by nothing once that one is ended.
  expect(newestUnbelieved([forged, version('n', 5, 1, false)])).toBe(forged);
  expect(newestUnbelieved([version('n', 100, 1, false, true), forged])).toBeUndefined();
});

it('ends a session one epoch above its current version, and says which of its own versions an instance may delete', () => {
  const a = version('a', 10, 1);
  const b = version('b', 12, 2);
  const ended = { ...version('c', 14, 3, true, true), record: endedVersion(b.record, 'c') };
  expect(ended.record).toEqual({ sessionId: 'S', executorId: 'laptop', servedBy: 'c', epoch: 3, ended: true });
  const all = [a, b, ended];
  expect(currentVersion(all)).toBe(ended);
  expect(outdatedOwnVersions(all, 'a')).toEqual([a]);
  expect(outdatedOwnVersions(all, 'b')).toEqual([b]);
  // The tombstone stays while another version is left, and goes when it is alone.
  expect(outdatedOwnVersions(all, 'c')).toEqual([]);
  expect(outdatedOwnVersions([ended], 'c')).toEqual([ended]);
  // The current version of a live session is not outdated.
  expect(outdatedOwnVersions([a, b], 'b')).toEqual([]);
});
