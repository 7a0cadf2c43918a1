import type { EventEnvelope } from '@browsermcp/protocol';
import { expect, it } from 'vitest';
import { ForwardedEvents } from '../../src/cluster/forwarded-events';

// Which events from other instances a front believes: pure logic over the directory's answer (ClusterNode.heldBy),
// so the directory is a set here; the real directory and NATS are in trust.test.ts and cluster.test.ts.
function setup(waitMs = 300) {
  const holders = new Set<string>();
  const delivered: string[] = [];
  const warnings: Array<Record<string, unknown>> = [];
  const events = new ForwardedEvents({
    heldBy: (instanceId, executorId) => holders.has(`${instanceId}/${executorId}`),
    deliver: (_executorId, event) => void delivered.push(String((event.payload as { text: string }).text)),
    logger: { warn: (details) => void warnings.push(details) },
    waitMs,
  });
  return { holders, delivered, warnings, events };
}
const event = (text: string): EventEnvelope => ({ wireId: `w-${text}`, sessionId: 's1', type: 'event', name: 'console', payload: { type: 'log', text } });

it("delivers at once what the browser's holder says", async () => {
  const { holders, delivered, events } = setup();
  holders.add('c/browser-1');
  await events.accept('c', 'browser-1', event('one'));
  expect(delivered).toEqual(['one']);
});

it('keeps the events of a browser that has just moved until the directory names its new holder, in their order', async () => {
  const { holders, delivered, events } = setup(2_000);
  const first = events.accept('b', 'browser-1', event('one'));
  // A second event of the same sender waits behind the first even once the holder is known: order is kept.
  setTimeout(() => holders.add('b/browser-1'), 120);
  const second = events.accept('b', 'browser-1', event('two'));
  await Promise.all([first, second]);
  expect(delivered).toEqual(['one', 'two']);
  await events.accept('b', 'browser-1', event('three'));
  expect(delivered).toEqual(['one', 'two', 'three']);
});

it('drops what an instance that does not hold the browser says, and logs each sender once', async () => {
  const { holders, delivered, warnings, events } = setup(150);
  holders.add('c/browser-1');
  await Promise.all([events.accept('b', 'browser-1', event('forged')), events.accept('b', 'browser-1', event('again'))]);
  // Another browser the sender does hold is not held up by it.
  holders.add('b/browser-2');
  await events.accept('b', 'browser-2', event('its own'));
  expect(delivered).toEqual(['its own']);
  expect(warnings).toEqual([expect.objectContaining({ sender: 'b', executorId: 'browser-1', why: 'the sender does not hold the browser' })]);
});

it('bounds how many events wait for the directory: past it they are dropped at once', async () => {
  const { delivered, warnings, events } = setup(200);
  const waits = Array.from({ length: 300 }, (_, i) => events.accept(`x${i}`, 'browser-1', event(`forged ${i}`)));
  // The 257th and later are dropped without waiting, while the first 256 still wait.
  await waits[299];
  expect(warnings.map((w) => w.why)).toEqual(Array(44).fill('too many events wait for the directory'));
  await Promise.all(waits);
  expect(delivered).toEqual([]);
  expect(warnings.filter((w) => w.why === 'the sender does not hold the browser')).toHaveLength(256);
});
