import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { SessionSecrets } from '../../src/cluster/session-secrets';

// The sealing of a session's secrets in its store record (pure logic; the store and a daemon's seed reading it are in
// trust.test.ts "keeps a session's secrets sealed in the store").
const key = randomBytes(32);
const secrets = { BANK_PIN: '4321', 'with space': 'ü and "quotes"' };
const s1 = { sessionId: 's1', executorId: 'laptop', userId: 'alice' };

it('opens what it sealed for the same session, browser and user, and nothing else', () => {
  const box = new SessionSecrets(key);
  const sealed = box.seal(s1, secrets);
  expect(sealed).not.toContain('4321');
  expect(box.open(s1, sealed)).toEqual(secrets);
  // Two seals of the same secrets differ (a fresh nonce each time).
  expect(box.seal(s1, secrets)).not.toBe(sealed);
  // Moved to another session's record, to the same session on another browser or for another user (or none), opened
  // with another key, changed, cut or not a string: nothing.
  expect(box.open({ ...s1, sessionId: 's2' }, sealed)).toBeUndefined();
  expect(box.open({ ...s1, executorId: 'local-b' }, sealed)).toBeUndefined();
  expect(box.open({ ...s1, userId: undefined }, sealed)).toBeUndefined();
  expect(new SessionSecrets(randomBytes(32)).open(s1, sealed)).toBeUndefined();
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[14] = bytes[14]! ^ 1;
  expect(box.open(s1, bytes.toString('base64url'))).toBeUndefined();
  expect(box.open(s1, sealed.slice(0, 20))).toBeUndefined();
  expect(box.open(s1, 42)).toBeUndefined();
});
