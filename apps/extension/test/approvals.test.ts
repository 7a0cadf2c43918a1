import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { APPROVAL_WAIT_MS, Approvals } from '../src/approvals.js';

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
    approvals.decide('s1', 'Claude', 'once');
    await vi.advanceTimersByTimeAsync(0);
    expect(again).toBe('allowed');
  });

  it('is answered at once by Deny, and by asking being turned off', async () => {
    const approvals = new Approvals(() => undefined);
    approvals.opened('s1', 'A');
    approvals.opened('s2', 'B');
    const denied = approvals.waitFor('s1');
    const allowed = approvals.waitFor('s2');
    approvals.decide('s1', 'A', 'deny');
    await expect(denied).resolves.toBe('denied');
    approvals.configure(false, []);
    await expect(allowed).resolves.toBe('allowed');
    expect(approvals.pendingCount).toBe(0);
  });

  it('remembers Always allow by name for the agent’s next sessions', () => {
    const approvals = new Approvals(() => undefined);
    approvals.opened('s1', 'Cursor');
    expect(approvals.decide('s1', 'Cursor', 'always')).toEqual(['Cursor']);
    expect(approvals.opened('s2', 'Cursor')).toBe('allowed');
    expect(approvals.opened('s3', 'Other')).toBe('pending');
  });
});
