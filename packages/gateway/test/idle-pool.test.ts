import { afterEach, expect, it, vi } from 'vitest';
import { IdlePool } from '../src/idle-pool.js';

// Pure logic: a pool of connections kept between the requests of one key, closed after their idle time.
afterEach(() => {
  vi.useRealTimers();
});

interface Conn {
  id: number;
  alive: boolean;
}

function pool(ended: Conn[], perKey = 2) {
  return new IdlePool<Conn>({ idleMs: 1_000, perKey, usable: (c) => c.alive, end: (c) => ended.push(c) });
}

it('hands back what was put under a key, newest first, and nothing under another key', () => {
  const ended: Conn[] = [];
  const p = pool(ended);
  const a = { id: 1, alive: true };
  const b = { id: 2, alive: true };
  p.put('alice', a);
  p.put('alice', b);
  expect(p.take('bob')).toBeUndefined();
  expect(p.take('alice')).toBe(b);
  expect(p.take('alice')).toBe(a);
  expect(p.take('alice')).toBeUndefined();
  expect(ended).toEqual([]);
});

it('ends what waits longer than its idle time, what can no longer be used, and what is over the limit per key', () => {
  vi.useFakeTimers();
  const ended: Conn[] = [];
  const p = pool(ended, 1);
  const idle = { id: 1, alive: true };
  const extra = { id: 2, alive: true };
  p.put('alice', idle);
  p.put('alice', extra);
  expect(ended).toEqual([extra]);
  vi.advanceTimersByTime(1_000);
  expect(ended).toEqual([extra, idle]);
  expect(p.take('alice')).toBeUndefined();

  const dropped = { id: 3, alive: true };
  p.put('bob', dropped);
  dropped.alive = false;
  expect(p.take('bob')).toBeUndefined();
  expect(ended).toContain(dropped);
  // A dead one is never kept.
  p.put('carol', { id: 4, alive: false });
  expect(p.take('carol')).toBeUndefined();
});

it('ends everything it holds on clear', () => {
  const ended: Conn[] = [];
  const p = pool(ended);
  p.put('a', { id: 1, alive: true });
  p.put('b', { id: 2, alive: true });
  p.clear();
  expect(ended.map((c) => c.id).sort()).toEqual([1, 2]);
  expect(p.take('a')).toBeUndefined();
});
