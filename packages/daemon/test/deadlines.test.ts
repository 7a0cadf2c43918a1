import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines } from '../src/index.js';

describe('Deadlines (one timer per key)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires once at its deadline; setting a key again replaces its timer; a cleared key never fires', () => {
    const d = new Deadlines<string>();
    const fired: string[] = [];
    d.set('a', 100, () => fired.push('a'));
    d.set('b', 50, () => fired.push('b'));
    d.set('a', 200, () => fired.push('a again'));
    expect(d.deadline('a')).toBe(Date.now() + 200);
    vi.advanceTimersByTime(150);
    expect(fired).toEqual(['b']);
    expect(d.clear('a')).toBe(true);
    vi.advanceTimersByTime(500);
    expect(fired).toEqual(['b']);
    expect(d.size).toBe(0);
    expect(d.clear('a')).toBe(false);
  });

  it("reaches a deadline past setTimeout's limit in steps, and clearAll drops every timer", () => {
    const d = new Deadlines<string>();
    const fired: string[] = [];
    const month = 30 * 86_400_000;
    d.set('far', month, () => fired.push('far'));
    d.set('near', 10, () => fired.push('near'));
    vi.advanceTimersByTime(2_147_483_647);
    expect(fired).toEqual(['near']);
    expect(d.has('far')).toBe(true);
    vi.advanceTimersByTime(month);
    expect(fired).toEqual(['near', 'far']);
    d.set('x', 10, () => fired.push('x'));
    d.clearAll();
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['near', 'far']);
  });
});
