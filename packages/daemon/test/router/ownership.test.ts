import { ErrorCodes } from '@browsermcp/protocol';
import { describe, expect, it } from 'vitest';
import type { SessionRouter } from '../../src/index';
import { FakeExecutor, useConnectedRouter } from '../helpers/fake-executor';

let router: SessionRouter;
let browser: FakeExecutor;

useConnectedRouter({ sessions: ['A', 'B'] }, (pair) => ({ router, browser } = pair));

describe('tab ownership', () => {
  it("fails a command naming another session's tab with TabOwnedByOtherSession, without sending it", async () => {
    await router.claimTab('browser-1', 'A', '12');
    await expect(router.dispatch('B', { name: 'browser_click', tabId: '12' })).rejects.toMatchObject({
      code: 'BMCP_ERR_TAB_OWNED',
      rpcCode: ErrorCodes.TabOwnedByOtherSession,
      statusCode: 409,
      message: 'tab 12 is owned by another session',
    });
    expect(browser.sent).toHaveLength(0);
  });

  it('fails a command naming a tab nobody owns with TabNotFound', async () => {
    await expect(router.dispatch('A', { name: 'browser_click', tabId: '99' })).rejects.toMatchObject({
      code: 'BMCP_ERR_TAB_NOT_FOUND',
      rpcCode: ErrorCodes.TabNotFound,
      statusCode: 404,
    });
    expect(browser.sent).toHaveLength(0);
  });

  it("sends a command without a tab as it came: the executor runs it in the session's current tab", async () => {
    await router.claimTab('browser-1', 'A', '7');
    const result = router.dispatch('A', { name: 'browser_snapshot' });
    const command = await browser.command(0);
    expect(command.tabId).toBeUndefined();
    browser.respond(command, 'ok', '7');
    await result;
  });

  it('sends the first command of a session without a tab, so the executor opens one', async () => {
    const result = router.dispatch('A', { name: 'browser_navigate' });
    const command = await browser.command(0);
    expect(command.tabId).toBeUndefined();
    browser.respond(command, 'ok');
    await result;
  });

  it("makes the tab the executor answered a session's first command with that session's own current tab", async () => {
    const first = router.dispatch('A', { name: 'browser_navigate' });
    browser.respond(await browser.command(0), 'ok', '31');
    await first;
    expect(await router.getSession('A')).toMatchObject({ currentTabId: '31' });
    await expect(router.dispatch('B', { name: 'browser_click', tabId: '31' })).rejects.toMatchObject({
      code: 'BMCP_ERR_TAB_OWNED',
    });
  });

  it("does not give a session another session's tab when an executor answers with it", async () => {
    await router.claimTab('browser-1', 'B', '5');
    const result = router.dispatch('A', { name: 'browser_navigate' });
    browser.respond(await browser.command(0), 'ok', '5');
    await result;
    expect((await router.getSession('A'))?.currentTabId).toBeUndefined();
    await expect(router.dispatch('A', { name: 'browser_click', tabId: '5' })).rejects.toMatchObject({
      code: 'BMCP_ERR_TAB_OWNED',
    });
  });

  it("makes the tab the executor answers with the session's current tab, whatever the command named", async () => {
    await router.claimTab('browser-1', 'A', '1');
    await router.claimTab('browser-1', 'A', '2');
    const named = router.dispatch('A', { name: 'browser_click', tabId: '1' });
    expect((await browser.command(0)).tabId).toBe('1');
    browser.respond(await browser.command(0), 'ok', '1');
    await named;
    expect((await router.getSession('A'))?.currentTabId).toBe('1');
    // browser_tabs select: sent to tab 1, answered from tab 2, which is current from now on.
    const selected = router.dispatch('A', { name: 'browser_tabs', tabId: '1' });
    browser.respond(await browser.command(1), 'ok', '2');
    await selected;
    expect((await router.getSession('A'))?.currentTabId).toBe('2');
  });

  it('refuses a claim on a tab another session owns', async () => {
    await router.claimTab('browser-1', 'A', '12');
    await expect(router.claimTab('browser-1', 'B', '12')).rejects.toMatchObject({ code: 'BMCP_ERR_TAB_OWNED' });
  });

  it('refuses a claim for a session held by another executor', async () => {
    await expect(router.claimTab('browser-2', 'A', '12')).rejects.toMatchObject({
      code: 'BMCP_ERR_SESSION_NOT_FOUND',
    });
  });

  it('forgets a released tab, and clears it as the current tab', async () => {
    await router.claimTab('browser-1', 'A', '12');
    expect(await router.releaseTab('browser-1', '12')).toBe(true);
    expect((await router.getSession('A'))?.currentTabId).toBeUndefined();
    await expect(router.dispatch('A', { name: 'browser_click', tabId: '12' })).rejects.toMatchObject({
      code: 'BMCP_ERR_TAB_NOT_FOUND',
    });
  });

  it('keeps the same tab id in two browsers apart', async () => {
    const second = new FakeExecutor(router, 'browser-2');
    await router.executorConnected(second);
    await router.openSession('C', { executorId: 'browser-2' });
    await router.claimTab('browser-1', 'A', '12');
    await router.claimTab('browser-2', 'C', '12');
    const result = router.dispatch('C', { name: 'browser_click', tabId: '12' });
    const command = await second.command(0);
    expect(command).toMatchObject({ sessionId: 'C', tabId: '12' });
    second.respond(command, 'ok');
    await result;
    expect(browser.sent).toHaveLength(0);
  });
});
