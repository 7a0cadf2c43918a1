import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APPROVAL_WAIT_MS, Approvals, canShareWith, parseAllowedAgents } from '../src/approvals.js';

// The approval state machine is pure logic: its timing is checked with fake timers here; the popup's buttons are
// driven as a person in a real browser by the gateway's scenarios-extension test.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('a new agent waiting for the person', () => {
  it('is still pending when nobody answers in 2 minutes, and the next call asks again for 2 more', async () => {
    const approvals = new Approvals(() => undefined);
    expect(approvals.opened('s1', 'Claude')).toBe('pending');
    let answer: string | undefined;
    void approvals.waitFor('s1').then((a) => (answer = a));
    await vi.advanceTimersByTimeAsync(APPROVAL_WAIT_MS - 1);
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(answer).toBe('pending');
    expect(APPROVAL_WAIT_MS).toBe(120_000);

    let again: string | undefined;
    void approvals.waitFor('s1').then((a) => (again = a));
    await vi.advanceTimersByTimeAsync(APPROVAL_WAIT_MS / 2);
    expect(again).toBeUndefined();
    approvals.decide('s1', { agent: 'API key 1', name: 'Claude' }, 'once');
    await vi.advanceTimersByTimeAsync(0);
    expect(again).toBe('allowed');
  });

  it('is answered at once by Deny, and by asking being turned off', async () => {
    const approvals = new Approvals(() => undefined);
    approvals.opened('s1', 'A');
    approvals.opened('s2', 'B');
    const denied = approvals.waitFor('s1');
    const allowed = approvals.waitFor('s2');
    approvals.decide('s1', { agent: 'API key 1', name: 'A' }, 'deny');
    await expect(denied).resolves.toBe('denied');
    approvals.configure(false, []);
    await expect(allowed).resolves.toBe('allowed');
    expect(approvals.pendingCount).toBe(0);
  });

  it('remembers Always allow by the identity the gateway authenticated, not by the name the agent gives itself', () => {
    const approvals = new Approvals(() => undefined);
    approvals.opened('s1', 'API key 3f9a12cd');
    const [entry] = approvals.decide('s1', { agent: 'API key 3f9a12cd', name: 'Cursor' }, 'always');
    expect(entry).toMatchObject({ agent: 'API key 3f9a12cd', name: 'Cursor', since: expect.any(Number) });
    expect(approvals.opened('s2', 'API key 3f9a12cd')).toBe('allowed');
    // Another key calling itself "Cursor" is asked.
    expect(approvals.opened('s3', 'API key 77aa0011')).toBe('pending');
  });

  it('counts for the badge only the agents whose call waits for an answer now', async () => {
    const approvals = new Approvals(() => undefined);
    approvals.opened('s1', 'API key 1');
    expect(approvals.pendingCount).toBe(0);
    void approvals.waitFor('s1');
    expect(approvals.pendingCount).toBe(1);
    await vi.advanceTimersByTimeAsync(APPROVAL_WAIT_MS);
    expect(approvals.pendingCount).toBe(0);
  });
});

describe('the stored list of agents always allowed', () => {
  it('keeps its entries and drops what is not one', () => {
    expect(parseAllowedAgents([{ agent: 'API key 1', name: 'Cursor', since: 5 }, 'Cursor', { agent: 2 }, null])).toEqual([
      { agent: 'API key 1', name: 'Cursor', since: 5 },
    ]);
    expect(parseAllowedAgents(undefined)).toEqual([]);
  });
});

describe('who the person may share a tab with', () => {
  it('an agent at work that they allowed or did not need to; never a denied, pending or listing-only one', () => {
    const acted = { at: 1, tool: 'browser_navigate', site: 'example.com' };
    expect(canShareWith({ approval: 'allowed', lastAction: acted })).toBe(true);
    expect(canShareWith({ approval: 'allowed', lastAction: null })).toBe(false);
    expect(canShareWith({ approval: 'unasked', lastAction: acted })).toBe(true);
    expect(canShareWith({ approval: 'unasked', lastAction: null })).toBe(false);
    expect(canShareWith({ approval: 'denied', lastAction: acted })).toBe(false);
    expect(canShareWith({ approval: 'pending', lastAction: acted })).toBe(false);
  });
});
