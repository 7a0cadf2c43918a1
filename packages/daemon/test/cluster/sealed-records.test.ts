import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { SealedRecords, sessionBinding, splitRecord } from '../../src/cluster/sealed-records';

// The sealing of a session record's private part in the store (pure logic; the store and a daemon's seed reading it
// are in trust.test.ts "keeps a session's user, agent, settings and secrets sealed in the store").
const key = randomBytes(32);
const record = {
  sessionId: 's1',
  executorId: 'laptop',
  servedBy: 'a',
  currentTabId: 't1',
  clientName: 'claude-code',
  agent: 'user alice',
  userId: 'alice',
  account: 'key-3f9a',
  settings: { secrets: { BANK_PIN: '4321', 'with space': 'ü and "quotes"' } },
};

it('splits a record into what cleanup reads in clear and the part only the daemons read', () => {
  const { open, part } = splitRecord(record);
  expect(open).toEqual({ sessionId: 's1', executorId: 'laptop', servedBy: 'a', currentTabId: 't1' });
  expect({ ...open, ...part }).toEqual(record);
});

it('opens what it sealed for the same record, and nothing else', () => {
  const box = new SealedRecords(key);
  const { part } = splitRecord(record);
  const bound = sessionBinding(record);
  const sealed = box.seal(bound, part);
  for (const word of ['4321', 'alice', 'claude-code', 'key-3f9a', 'BANK_PIN']) expect(sealed).not.toContain(word);
  expect(box.open(bound, sealed)).toEqual(JSON.parse(JSON.stringify(part)));
  // Its length says little of what it holds: a part without secrets or settings seals to the same length.
  expect(box.seal(bound, { userId: 'alice' }).length).toBe(sealed.length);
  // Each read is an object of its own: what one reader changes, the next does not see.
  (box.open(bound, sealed)!.settings as { secrets: Record<string, string> }).secrets.BANK_PIN = 'changed';
  expect(box.open(bound, sealed)).toEqual(JSON.parse(JSON.stringify(part)));
  // Two seals of the same part differ (a fresh nonce each time).
  expect(box.seal(bound, part)).not.toBe(sealed);
  // Moved to another session's record or to the same session on another browser, opened with another key, changed,
  // cut or not a string: nothing.
  expect(box.open(sessionBinding({ ...record, sessionId: 's2' }), sealed)).toBeUndefined();
  expect(box.open(sessionBinding({ ...record, executorId: 'local-b' }), sealed)).toBeUndefined();
  // Nor as another kind of record with the same ids (a directory entry's binding).
  expect(box.open(['browser', 's1', 'laptop'], sealed)).toBeUndefined();
  expect(new SealedRecords(randomBytes(32)).open(bound, sealed)).toBeUndefined();
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[14] = bytes[14]! ^ 1;
  expect(box.open(bound, bytes.toString('base64url'))).toBeUndefined();
  expect(box.open(bound, sealed.slice(0, 20))).toBeUndefined();
  expect(box.open(bound, 42)).toBeUndefined();
});
