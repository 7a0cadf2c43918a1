import { ErrorCodes } from '@browsermcp/protocol';
import { describe, expect, it, vi } from 'vitest';
import { SessionRouter, type SessionRecord } from '../../src/index';
import { FakeExecutor, useConnectedRouter } from '../helpers/fake-executor';

let router: SessionRouter;
let browser: FakeExecutor;

useConnectedRouter({}, (pair) => ({ router, browser } = pair));

describe('opening sessions', () => {
  it('opens a session on the default executor', async () => {
    expect(await router.openSession('A', { clientName: 'Claude Code' })).toEqual({
      sessionId: 'A',
      executorId: 'browser-1',
      clientName: 'Claude Code',
    });
    expect(await router.hasSession('A')).toBe(true);
  });

  it('opens a session on the executor it names', async () => {
    await router.executorConnected(new FakeExecutor(router, 'browser-2'));
    expect(await router.openSession('A', { executorId: 'browser-2' })).toMatchObject({ executorId: 'browser-2' });
  });

  it('tells the executor that a session opened on it', async () => {
    const opened: SessionRecord[] = [];
    class OpeningExecutor extends FakeExecutor {
      async openSession(session: SessionRecord): Promise<void> {
        opened.push(session);
      }
    }
    await router.executorConnected(new OpeningExecutor(router, 'browser-2'));
    await router.openSession('A', { executorId: 'browser-2', clientName: 'Cursor' });
    expect(opened).toEqual([{ sessionId: 'A', executorId: 'browser-2', clientName: 'Cursor' }]);
  });

  it('does not open a session that its executor refused', async () => {
    class RefusingExecutor extends FakeExecutor {
      async openSession(): Promise<void> {
        throw new Error('no tab group for you');
      }
    }
    await router.executorConnected(new RefusingExecutor(router, 'browser-2'));
    await expect(router.openSession('A', { executorId: 'browser-2' })).rejects.toThrow('no tab group for you');
    expect(await router.hasSession('A')).toBe(false);
  });

  it('refuses to open a session that is already open', async () => {
    await router.openSession('A');
    await expect(router.openSession('A')).rejects.toMatchObject({
      code: 'BMCP_ERR_SESSION_EXISTS',
      rpcCode: ErrorCodes.InvalidRequest,
    });
  });

  it('refuses to open a session on a browser that is not connected', async () => {
    await expect(router.openSession('A', { executorId: 'nowhere' })).rejects.toMatchObject({
      code: 'BMCP_ERR_BROWSER_NOT_CONNECTED',
      rpcCode: ErrorCodes.BrowserDisconnected,
      statusCode: 503,
    });
  });

  it('refuses to open a session without an executor on a router that has no default', async () => {
    const bare = new SessionRouter();
    await expect(bare.openSession('A')).rejects.toMatchObject({ code: 'BMCP_ERR_INVALID_ARGUMENT' });
    await bare.close();
  });

  it('refuses an empty session id', async () => {
    await expect(router.openSession('')).rejects.toMatchObject({
      code: 'BMCP_ERR_INVALID_ARGUMENT',
      rpcCode: ErrorCodes.InvalidParams,
    });
  });
});

describe('closing sessions', () => {
  it("closes the session's tabs through its executor and releases them", async () => {
    await router.openSession('A');
    await router.openSession('B');
    await router.claimTab('browser-1', 'A', '1');
    await router.claimTab('browser-1', 'A', '2');

    expect(await router.closeSession('A')).toBe(true);
    expect(browser.closedSessions).toEqual(['A']);
    expect(await router.hasSession('A')).toBe(false);
    // Released: the tab id is free again, so another session can take it.
    await router.claimTab('browser-1', 'B', '1');
  });

  it('fails the commands the session had sent or queued with SessionClosed', async () => {
    await router.openSession('A');
    const sent = router.dispatch('A', { name: 'browser_wait_for' });
    const queued = router.dispatch('A', { name: 'browser_snapshot' });
    const sentFailed = expect(sent).rejects.toMatchObject({
      code: 'BMCP_ERR_SESSION_CLOSED',
      rpcCode: ErrorCodes.SessionNotFound,
    });
    const queuedFailed = expect(queued).rejects.toMatchObject({ code: 'BMCP_ERR_SESSION_CLOSED' });
    await browser.command(0);
    await router.closeSession('A');
    await Promise.all([sentFailed, queuedFailed]);
    expect(browser.sent).toHaveLength(1);
  });

  it("tells the session's closed listeners that it was closed", async () => {
    await router.openSession('A');
    const closed = vi.fn();
    router.onSessionClosed('A', closed);
    await router.closeSession('A');
    expect(closed).toHaveBeenCalledWith('closed');
  });

  it('answers false when asked to close a session that is not open', async () => {
    expect(await router.closeSession('nobody')).toBe(false);
    expect(browser.closedSessions).toEqual([]);
  });

  it('rejects a command for a closed session with SessionNotFound', async () => {
    await router.openSession('A');
    await router.closeSession('A');
    await expect(router.dispatch('A', { name: 'browser_click' })).rejects.toMatchObject({
      code: 'BMCP_ERR_SESSION_NOT_FOUND',
    });
  });
});

describe('a session the person stops', () => {
  it('ends it, fails its running command, and answers its later commands that the person stopped it', async () => {
    await router.openSession('A');
    const closed = vi.fn();
    router.onSessionClosed('A', closed);
    const running = router.dispatch('A', { name: 'browser_snapshot' });
    await browser.command(0);
    expect(await router.stopSession('browser-2', 'A')).toBe(false); // not the browser that holds it
    expect(await router.stopSession('browser-1', 'A')).toBe(true);
    await expect(running).rejects.toMatchObject({ code: 'BMCP_ERR_SESSION_STOPPED', statusCode: 404 });
    await expect(router.dispatch('A', { name: 'browser_snapshot' })).rejects.toMatchObject({
      code: 'BMCP_ERR_SESSION_STOPPED',
      message: expect.stringContaining('the person stopped this agent in their browser'),
    });
    expect(closed).toHaveBeenCalledWith('stopped');
    expect(await router.hasSession('A')).toBe(false);
    // A session that was never open still reads as not open.
    await expect(router.dispatch('B', { name: 'browser_snapshot' })).rejects.toMatchObject({ code: 'BMCP_ERR_SESSION_NOT_FOUND' });
  });

  it("says how the person stopped it: Stop in the popup, or Cancel on Chrome's debugging bar", async () => {
    await router.openSession('A');
    await router.openSession('B');
    expect(await router.stopSession('browser-1', 'A')).toBe(true);
    expect(await router.stopSession('browser-1', 'B', 'debugger_bar')).toBe(true);
    await expect(router.dispatch('A', { name: 'browser_snapshot' })).rejects.toThrow(
      'the person stopped this agent in their browser (the Stop button in the browsermcp popup)',
    );
    await expect(router.dispatch('B', { name: 'browser_snapshot' })).rejects.toThrow(
      `the person stopped this agent in their browser (Cancel on Chrome's "started debugging this browser" bar; browsermcp stays paused there until they press Connect in its popup)`,
    );
    expect([router.stoppedVia('A'), router.stoppedVia('B'), router.stoppedVia('C')]).toEqual(['popup', 'debugger_bar', undefined]);
  });
});
