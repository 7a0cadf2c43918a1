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

it('drops what an instance that does not hold the browser says, and logs it once a minute per sender', async () => {
  const { holders, delivered, warnings, events } = setup(150);
  holders.add('c/browser-1');
  await Promise.all([events.accept('b', 'browser-1', event('forged')), events.accept('b', 'browser-1', event('again'))]);
  // Another browser the sender does hold is not held up by it.
  holders.add('b/browser-2');
  await events.accept('b', 'browser-2', event('its own'));
  expect(delivered).toEqual(['its own']);
  expect(warnings).toEqual([expect.objectContaining({ sender: 'b', executorId: 'browser-1', why: 'the sender does not hold the browser' })]);
});

it("bounds how many of one sender's events wait, without holding up another sender's", async () => {
  const { holders, delivered, warnings, events } = setup(200);
  holders.add('c/browser-1');
  const flood = Array.from({ length: 100 }, (_, i) => events.accept('b', `browser-${i}`, event(`forged ${i}`)));
  // The 65th and later of b's are dropped without waiting, while its first 64 still wait.
  await flood[99];
  expect(warnings).toEqual([expect.objectContaining({ sender: 'b', why: 'too many of its events wait for the directory' })]);
  // c, which holds its browser, is heard at once; d, whose browser just moved to it, once the directory says so.
  await events.accept('c', 'browser-1', event('from c'));
  setTimeout(() => holders.add('d/browser-2'), 50);
  await events.accept('d', 'browser-2', event('from d'));
  expect(delivered).toEqual(['from c', 'from d']);
  await Promise.all(flood);
  expect(delivered).toEqual(['from c', 'from d']);
  // b's drops are logged once a minute, not once each.
  expect(warnings).toHaveLength(1);
});
