import { createEvent, type EventEnvelope } from '@browsermcp/protocol';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionRouter } from '../../src/index';
import { FakeExecutor, useConnectedRouter } from '../helpers/fake-executor';

let router: SessionRouter;
let browser: FakeExecutor;
const warn = vi.fn();

beforeEach(() => warn.mockReset());
useConnectedRouter({ sessions: ['A', 'B'], options: { logger: { warn } } }, (pair) => ({ router, browser } = pair));

function consoleEvent(sessionId: string, text: string, tabId?: string): EventEnvelope {
  return createEvent({ sessionId, name: 'console', payload: { text }, ...(tabId === undefined ? {} : { tabId }) });
}

describe('event routing', () => {
  it('delivers an event only to the session it names', async () => {
    const a: EventEnvelope[] = [];
    const b: EventEnvelope[] = [];
    router.onEvent('A', (event) => a.push(event));
    router.onEvent('B', (event) => b.push(event));
    const event = consoleEvent('A', 'hello');
    expect(await router.handleEvent('browser-1', event)).toBe(true);
    expect(a).toEqual([event]);
    expect(b).toEqual([]);
  });

  it('drops an event about a tab that another session owns', async () => {
    await router.claimTab('browser-1', 'B', '12');
    const a = vi.fn();
    const b = vi.fn();
    router.onEvent('A', a);
    router.onEvent('B', b);
    expect(await router.handleEvent('browser-1', consoleEvent('A', 'not yours', '12'))).toBe(false);
    expect(a).not.toHaveBeenCalled();
    expect(b).not.toHaveBeenCalled();
  });

  it('drops an event from an executor that does not hold the session', async () => {
    const other = new FakeExecutor(router, 'browser-2');
    await router.executorConnected(other);
    const listener = vi.fn();
    router.onEvent('A', listener);
    expect(await router.handleEvent('browser-2', consoleEvent('A', 'forged'))).toBe(false);
    expect(listener).not.toHaveBeenCalled();
  });

  it('delivers the events of one executor in the order they came', async () => {
    await router.claimTab('browser-1', 'A', '3');
    const texts: unknown[] = [];
    router.onEvent('A', (event) => texts.push(event.payload));
    // Events with a tab take one more store lookup than those without; they must not overtake.
    await Promise.all([
      router.handleEvent('browser-1', consoleEvent('A', 'one', '3')),
      router.handleEvent('browser-1', consoleEvent('A', 'two')),
      router.handleEvent('browser-1', consoleEvent('A', 'three', '3')),
    ]);
    expect(texts).toEqual([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
  });

  it('stops delivering to a listener once it unsubscribes', async () => {
    const listener = vi.fn();
    const unsubscribe = router.onEvent('A', listener);
    unsubscribe();
    expect(await router.handleEvent('browser-1', consoleEvent('A', 'hello'))).toBe(false);
    expect(listener).not.toHaveBeenCalled();
  });

  it('keeps delivering to the other listeners when one throws, and logs it', async () => {
    const after = vi.fn();
    router.onEvent('A', () => {
      throw new Error('listener bug');
    });
    router.onEvent('A', after);
    await router.handleEvent('browser-1', consoleEvent('A', 'hello'));
    expect(after).toHaveBeenCalledOnce();
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ sessionId: 'A' }), 'a session listener threw');
  });
});
