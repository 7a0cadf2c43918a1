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
    const kept = await router.states.keep('alice', 'first', 60_000, { id: 'mcp-1' });
    expect(kept).toMatchObject({ owner: 'alice', sessionId: 'first', holders: [{ id: 'mcp-1' }] });
    expect(await router.states.keep('alice', 'first', 60_000, { id: 'mcp-x' })).toBeUndefined(); // one state per owner
    await router.states.release('alice', kept!.handle, 'mcp-1');

    await vi.advanceTimersByTimeAsync(59_000);
    // Taken up again before its time ran out: it stays, and waits again from its next release.
    expect(await router.states.take('alice', { id: 'mcp-2' })).toMatchObject({ sessionId: 'first', holders: [{ id: 'mcp-2' }] });
    expect(await router.states.take('bob', { id: 'mcp-3' })).toBeUndefined();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(await router.hasSession('first')).toBe(true);
    await router.states.release('alice', kept!.handle, 'mcp-2');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await router.hasSession('first')).toBe(false);
    expect(browser.closedSessions).toEqual(['first']);
    expect(await router.states.take('alice', { id: 'mcp-4' })).toBeUndefined();
  } finally {
    vi.useRealTimers();
  }
});

it('forgets a kept state whose session ended some other way, and refuses a release under a stale handle', async () => {
  await router.openSession('s');
  const kept = await router.states.keep('carol', 's', 60_000, { id: 'c1' });
  await router.states.release('carol', 'not-the-handle', 'c1');
  expect(await router.states.take('carol', { id: 'c2' })).toMatchObject({ holders: [{ id: 'c1' }, { id: 'c2' }] });
  await router.closeSession('s');
  expect(await router.states.take('carol', { id: 'c3' })).toBeUndefined();
  expect(kept).toBeDefined();
});

it('drops the holders of an instance that died, so the state can wait and close as if they had left', async () => {
  vi.useFakeTimers();
  try {
    await router.openSession('kept');
    await router.states.keep('dora', 'kept', 1_000, { id: 'on-east', instance: 'east' });
    await router.states.take('dora', { id: 'on-west', instance: 'west' });
    await router.states.expire((holder) => holder.instance === 'east');
    expect(await router.states.take('dora', { id: 'on-west', instance: 'west' })).toMatchObject({ holders: [{ id: 'on-west', instance: 'west' }] });
    const state = await router.states.take('dora', { id: 'again', instance: 'west' });
    await router.states.release('dora', state!.handle, 'on-west');
    await router.states.release('dora', state!.handle, 'again');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await router.hasSession('kept')).toBe(false);
  } finally {
    vi.useRealTimers();
  }
});

it('lists the named states of one principal, and closes one at once with its session, whoever holds it', async () => {
  await router.openSession('h1');
  await router.openSession('h2');
  await router.openSession('other');
  await router.states.keep('erin/bs_1', 'h1', 60_000, { id: 'e1' }, { principal: 'erin', name: 'bs_1' });
  await router.states.keep('erin/bs_2', 'h2', 60_000, { id: 'e2' }, { principal: 'erin', name: 'bs_2' });
  await router.states.keep('frank/bs_3', 'other', 60_000, { id: 'f1' }, { principal: 'frank', name: 'bs_3' });
  expect((await router.states.of('erin')).map((s) => s.name).sort()).toEqual(['bs_1', 'bs_2']);
  expect(await router.states.close('erin/bs_1')).toBe(true);
  expect(await router.hasSession('h1')).toBe(false);
  expect(await router.states.take('erin/bs_1', { id: 'e3' })).toBeUndefined();
  expect((await router.states.of('erin')).map((s) => s.name)).toEqual(['bs_2']);
  // Nothing to close: said, not thrown.
  expect(await router.states.close('erin/bs_1')).toBe(false);
  expect(await router.hasSession('other')).toBe(true);
});

it('has room for --max-browser-states (every owner together): checkRoom refuses past it, naming the flag, until one closes', async () => {
  const { SessionRouter } = await import('../../src/index');
  const bounded = new SessionRouter({ maxBrowserStates: 2 });
  try {
    for (const [owner, session] of [
      ['a', 's1'],
      ['b', 's2'],
    ] as const) {
      await bounded.states.checkRoom();
      await bounded.openSession(session, { executorId: 'none' }).catch(() => undefined);
      await bounded.states.keep(owner, session, 60_000, { id: `h-${owner}` });
    }
    await expect(bounded.states.checkRoom()).rejects.toMatchObject({
      code: 'BMCP_ERR_TOO_MANY_STATES',
      message: expect.stringContaining('keeps 2 browser states, the most it may (--max-browser-states 2)'),
    });
    await bounded.states.close('a');
    await expect(bounded.states.checkRoom()).resolves.toBeUndefined();
  } finally {
    await bounded.close();
  }
  expect(() => new SessionRouter({ maxBrowserStates: 0 })).toThrow('"maxBrowserStates" must be a whole number of at least 1');
});
