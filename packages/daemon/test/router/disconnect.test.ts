import { ErrorCodes } from '@browsermcp/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { SessionRouter } from '../../src/index';
import { connectedRouter, FakeExecutor, useConnectedRouter } from '../helpers/fake-executor';

const MINUTE = 60_000;
let router: SessionRouter;
let browser: FakeExecutor;

useConnectedRouter({ sessions: ['A', 'B'], setup: (r) => r.claimTab('browser-1', 'A', '12') }, (pair) => ({ router, browser } = pair));

describe('a browser that disconnects', () => {
  it('fails its commands in flight at once with BrowserDisconnected', async () => {
    const result = router.dispatch('A', { name: 'browser_click' });
    const failed = expect(result).rejects.toMatchObject({
      code: 'BMCP_ERR_BROWSER_DISCONNECTED',
      rpcCode: ErrorCodes.BrowserDisconnected,
      statusCode: 503,
      message: expect.stringMatching(/^the browser disconnected; it has 5 minutes to reconnect/) as unknown,
    });
    await browser.command(0);
    router.executorDisconnected(browser);
    await failed;
    expect((await router.stats()).pending).toBe(0);
  });

  it('fails new commands of its sessions at once, saying how long it has left', async () => {
    router.executorDisconnected(browser);
    await vi.advanceTimersByTimeAsync(MINUTE);
    await expect(router.dispatch('A', { name: 'browser_click' })).rejects.toMatchObject({
      code: 'BMCP_ERR_BROWSER_DISCONNECTED',
      message: expect.stringMatching(/^the browser is disconnected; it has 4 minutes to reconnect/) as unknown,
    });
    expect(browser.sent).toHaveLength(0);
  });

  it('keeps its sessions and tabs during the grace period', async () => {
    router.executorDisconnected(browser);
    await vi.advanceTimersByTimeAsync(5 * MINUTE - 1);
    expect(await router.hasSession('A')).toBe(true);
    await expect(router.claimTab('browser-1', 'B', '12')).rejects.toMatchObject({ code: 'BMCP_ERR_TAB_OWNED' });
    expect(await router.stats()).toMatchObject({ sessions: 2, executors: 0, reconnecting: 1 });
  });

  it('gets its tabs back and runs commands again when it reconnects within the grace period', async () => {
    router.executorDisconnected(browser);
    await vi.advanceTimersByTimeAsync(4 * MINUTE);
    const back = new FakeExecutor(router, 'browser-1');
    const { orphanedTabs } = await router.executorConnected(back, [{ tabId: '12', sessionId: 'A' }]);
    expect(orphanedTabs).toEqual([]);

    const result = router.dispatch('A', { name: 'browser_click', tabId: '12' });
    const command = await back.command(0);
    back.respond(command, 'clicked');
    await expect(result).resolves.toBe('clicked');
    await expect(router.dispatch('B', { name: 'browser_click', tabId: '12' })).rejects.toMatchObject({
      code: 'BMCP_ERR_TAB_OWNED',
    });
    // The grace timer is gone: the sessions outlive the old deadline.
    await vi.advanceTimersByTimeAsync(2 * MINUTE);
    expect(await router.hasSession('A')).toBe(true);
  });

  it('releases the tabs that it no longer reports when it reconnects', async () => {
    router.executorDisconnected(browser);
    await router.executorConnected(new FakeExecutor(router, 'browser-1'), []);
    await expect(router.dispatch('A', { name: 'browser_click', tabId: '12' })).rejects.toMatchObject({
      code: 'BMCP_ERR_TAB_NOT_FOUND',
    });
    expect((await router.getSession('A'))?.currentTabId).toBeUndefined();
  });

  it('hands back the reported tabs that no session of its holds any more as orphaned', async () => {
    router.executorDisconnected(browser);
    const { orphanedTabs } = await router.executorConnected(new FakeExecutor(router, 'browser-1'), [
      { tabId: '12', sessionId: 'A' },
      { tabId: '40', sessionId: 'gone' },
    ]);
    expect(orphanedTabs).toEqual([{ tabId: '40', sessionId: 'gone' }]);
  });

  it('closes its sessions and forgets their tabs once the grace period ends', async () => {
    const closed = vi.fn();
    router.onSessionClosed('A', closed);
    router.executorDisconnected(browser);
    await vi.advanceTimersByTimeAsync(5 * MINUTE);

    expect(closed).toHaveBeenCalledWith('browser-gone');
    expect(await router.hasSession('A')).toBe(false);
    expect(await router.hasSession('B')).toBe(false);
    expect(await router.stats()).toMatchObject({ sessions: 0, reconnecting: 0 });
    // Coming back now is a fresh start: its old tabs belong to nobody.
    const { orphanedTabs } = await router.executorConnected(new FakeExecutor(router, 'browser-1'), [{ tabId: '12', sessionId: 'A' }]);
    expect(orphanedTabs).toEqual([{ tabId: '12', sessionId: 'A' }]);
  });

  it("uses the router's gracePeriodMs option", async () => {
    await router.close();
    ({ router, browser } = await connectedRouter({ gracePeriodMs: 30_000 }));
    await router.openSession('A');
    router.executorDisconnected(browser);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(await router.hasSession('A')).toBe(false);
  });

  it('ignores a late close of a connection that the same browser already replaced', async () => {
    const replacement = new FakeExecutor(router, 'browser-1');
    await router.executorConnected(replacement, [{ tabId: '12', sessionId: 'A' }]);
    router.executorDisconnected(browser);
    const result = router.dispatch('A', { name: 'browser_snapshot' });
    replacement.respond(await replacement.command(0), 'still here');
    await expect(result).resolves.toBe('still here');
  });

  it('fails the commands sent on a connection that the same browser replaced', async () => {
    const result = router.dispatch('A', { name: 'browser_click' });
    const failed = expect(result).rejects.toMatchObject({
      code: 'BMCP_ERR_BROWSER_RECONNECTED',
      rpcCode: ErrorCodes.BrowserDisconnected,
    });
    await browser.command(0);
    await router.executorConnected(new FakeExecutor(router, 'browser-1'), [{ tabId: '12', sessionId: 'A' }]);
    await failed;
  });
});
