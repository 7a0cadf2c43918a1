import { ErrorCodes } from '@browsermcp/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { SessionRouter } from '../../src/index';
import { FakeExecutor, useConnectedRouter } from '../helpers/fake-executor';

let router: SessionRouter;
let browser: FakeExecutor;

useConnectedRouter({ sessions: ['A'] }, (pair) => ({ router, browser } = pair));

describe('closing the router', () => {
  it('rejects every pending and queued command', async () => {
    const sent = router.dispatch('A', { name: 'browser_wait_for' });
    const queued = router.dispatch('A', { name: 'browser_snapshot' });
    const closedError = { code: 'BMCP_ERR_ROUTER_CLOSED', rpcCode: ErrorCodes.BrowserDisconnected };
    const failed = Promise.all([expect(sent).rejects.toMatchObject(closedError), expect(queued).rejects.toMatchObject(closedError)]);
    await browser.command(0);
    await router.close();
    await failed;
    expect(browser.sent).toHaveLength(1);
  });

  it('clears every timer it started', async () => {
    const second = new FakeExecutor(router, 'browser-2');
    await router.executorConnected(second);
    const pending = router.dispatch('A', { name: 'browser_wait_for' });
    const failed = expect(pending).rejects.toMatchObject({ code: 'BMCP_ERR_ROUTER_CLOSED' });
    await browser.command(0);
    router.executorDisconnected(second);
    expect(vi.getTimerCount()).toBe(2); // the command's timeout and the grace period
    await router.close();
    expect(vi.getTimerCount()).toBe(0);
    await failed;
  });

  it('refuses new work once closed', async () => {
    await router.close();
    await expect(router.dispatch('A', { name: 'browser_click' })).rejects.toMatchObject({
      code: 'BMCP_ERR_ROUTER_CLOSED',
    });
    await expect(router.openSession('B')).rejects.toMatchObject({ code: 'BMCP_ERR_ROUTER_CLOSED' });
  });

  it('can be closed twice', async () => {
    await router.close();
    await expect(router.close()).resolves.toBeUndefined();
  });
});

describe('stats', () => {
  it('counts sessions, connected and reconnecting executors, and pending commands', async () => {
    await router.openSession('B');
    const away = new FakeExecutor(router, 'browser-2');
    await router.executorConnected(away);
    router.executorDisconnected(away);
    const result = router.dispatch('A', { name: 'browser_snapshot' });
    const command = await browser.command(0);
    expect(await router.stats()).toEqual({ sessions: 2, executors: 1, reconnecting: 1, pending: 1 });
    browser.respond(command, 'ok');
    await result;
    expect((await router.stats()).pending).toBe(0);
  });
});
