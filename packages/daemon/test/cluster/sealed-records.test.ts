import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { SealedRecords, splitRecord } from '../../src/cluster/sealed-records';

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

it('opens what it sealed for the same session and browser, and nothing else', () => {
  const box = new SealedRecords(key);
  const { part } = splitRecord(record);
  const sealed = box.seal(record, part);
  for (const word of ['4321', 'alice', 'claude-code', 'key-3f9a', 'BANK_PIN']) expect(sealed).not.toContain(word);
  expect(box.open(record, sealed)).toEqual(part);
  // Two seals of the same part differ (a fresh nonce each time).
  expect(box.seal(record, part)).not.toBe(sealed);
  // Moved to another session's record or to the same session on another browser, opened with another key, changed,
  // cut or not a string: nothing.
  expect(box.open({ ...record, sessionId: 's2' }, sealed)).toBeUndefined();
  expect(box.open({ ...record, executorId: 'local-b' }, sealed)).toBeUndefined();
  expect(new SealedRecords(randomBytes(32)).open(record, sealed)).toBeUndefined();
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[14] = bytes[14]! ^ 1;
  expect(box.open(record, bytes.toString('base64url'))).toBeUndefined();
  expect(box.open(record, sealed.slice(0, 20))).toBeUndefined();
  expect(box.open(record, 42)).toBeUndefined();
});
