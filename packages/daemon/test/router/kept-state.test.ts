import { expect, it, vi } from 'vitest';
import type { SessionRouter } from '../../src/index';
import { useConnectedRouter, type FakeExecutor } from '../helpers/fake-executor';

let router: SessionRouter;
let browser: FakeExecutor;

useConnectedRouter({}, (pair) => ({ router, browser } = pair));

it('keeps a session as its owner’s browser state for keepMs after its last user leaves, then closes it', async () => {
  vi.useFakeTimers();
  try {
    await router.openSession('first');
    const kept = await router.keepState('alice', 'first', 60_000);
    expect(kept).toMatchObject({ owner: 'alice', sessionId: 'first', users: 1 });
    expect(await router.keepState('alice', 'first', 60_000)).toBeUndefined(); // one state per owner
    await router.releaseState('alice', kept!.handle);

    await vi.advanceTimersByTimeAsync(59_000);
    // Taken up again before its time ran out: it stays, and waits again from its next release.
    expect(await router.takeState('alice')).toMatchObject({ sessionId: 'first', users: 1 });
    expect(await router.takeState('bob')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(await router.hasSession('first')).toBe(true);
    await router.releaseState('alice', kept!.handle);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await router.hasSession('first')).toBe(false);
    expect(browser.closedSessions).toEqual(['first']);
    expect(await router.takeState('alice')).toBeUndefined();
  } finally {
    vi.useRealTimers();
  }
});

it('forgets a kept state whose session ended some other way, and refuses a release under a stale handle', async () => {
  await router.openSession('s');
  const kept = await router.keepState('carol', 's', 60_000);
  await router.releaseState('carol', 'not-the-handle');
  expect(await router.takeState('carol')).toMatchObject({ users: 2 });
  await router.closeSession('s');
  expect(await router.takeState('carol')).toBeUndefined();
  expect(kept).toBeDefined();
});
