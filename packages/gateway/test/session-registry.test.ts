import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { Backend } from '../src/backend.js';
import { SessionRegistry, UNUSED_IDLE_MS, type GatewaySession } from '../src/sessions.js';

// The registry's timing is pure logic: checked with fake timers and a backend that only records what it is asked
// (the HTTP behaviour, with real clients, is limits.test.ts).
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function registry(idleMs: number): { registry: SessionRegistry; closed: string[]; log: string[] } {
  const closed: string[] = [];
  const log: string[] = [];
  const backend = { closeSession: async (id: string) => void closed.push(id) } as unknown as Backend;
  const r = new SessionRegistry(backend, { opened: () => undefined, closed: (s, reason) => void log.push(`${s.id}: ${reason}`) }, idleMs);
  return { registry: r, closed, log };
}

function session(id: string): GatewaySession {
  return {
    id,
    kind: 'streamable',
    keyHash: 'k',
    transport: {} as GatewaySession['transport'],
    server: { close: async () => undefined } as unknown as GatewaySession['server'],
    lastSeen: Date.now(),
    openStreams: 0,
  };
}

it('closes a session whose client never called a tool after five minutes idle, one that did after the idle timeout', async () => {
  const { registry: r, closed, log } = registry(30 * 60_000);
  const looked = session('looked');
  const used = session('used');
  r.add(looked);
  r.add(used);
  r.called(used);
  await vi.advanceTimersByTimeAsync(UNUSED_IDLE_MS + 60_000);
  expect(closed).toEqual(['looked']);
  expect(log).toEqual(['looked: idle for more than 300 s without a tool call']);
  expect(r.endedWhy('looked')).toBe('idle for more than 300 s without a tool call');
  await vi.advanceTimersByTimeAsync(30 * 60_000);
  expect(closed).toEqual(['looked', 'used']);
  r.closeAll('test over');
});
