import { ErrorCodes } from '@browsermcp/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { SessionRouter } from '../../src/index';
import { type FakeExecutor, settle, useConnectedRouter } from '../helpers/fake-executor';

let router: SessionRouter;
let browser: FakeExecutor;
useConnectedRouter({ sessions: ['A', 'B'], options: { commandTimeoutMs: 10_000 } }, (pair) => ({ router, browser } = pair));

const cancelledError = (name: string) => ({ code: 'BMCP_ERR_CANCELLED', rpcCode: ErrorCodes.Cancelled, message: `${name} was cancelled by its caller` });

describe('cancelling a command', () => {
  it('answers a running command Cancelled at once, tells the browser to stop it, and sends the next one', async () => {
    const controller = new AbortController();
    const first = router.dispatch('A', { name: 'browser_wait_for', signal: controller.signal });
    const second = router.dispatch('A', { name: 'browser_snapshot' });
    const command = await browser.command(0);
    await settle();
    expect(browser.sent).toHaveLength(1);
    controller.abort();
    await expect(first).rejects.toMatchObject(cancelledError('browser_wait_for'));
    expect(browser.cancelled).toEqual([{ wireId: command.wireId, reason: 'cancelled' }]);
    const next = await browser.command(1);
    expect(next.name).toBe('browser_snapshot');
    // The stopped command's late answer is dropped; the next one's is delivered.
    expect(browser.respond(command, 'late')).toBe(false);
    browser.respond(next, 'snapshot');
    await expect(second).resolves.toBe('snapshot');
  });

  it('takes a queued command out of the queue without ever sending it', async () => {
    const first = router.dispatch('A', { name: 'browser_click' });
    const controller = new AbortController();
    const queued = router.dispatch('A', { name: 'browser_type', signal: controller.signal });
    const third = router.dispatch('A', { name: 'browser_snapshot' });
    const running = await browser.command(0);
    controller.abort();
    await expect(queued).rejects.toMatchObject(cancelledError('browser_type'));
    browser.respond(running, 'clicked');
    await expect(first).resolves.toBe('clicked');
    const next = await browser.command(1);
    expect(next.name).toBe('browser_snapshot');
    browser.respond(next, 'ok');
    await expect(third).resolves.toBe('ok');
    expect(browser.sent.map((c) => c.name)).toEqual(['browser_click', 'browser_snapshot']);
    expect(browser.cancelled).toEqual([]); // nothing of it reached the browser
  });

  it('refuses a command whose signal is already aborted, and a signal that is not an AbortSignal', async () => {
    await expect(router.dispatch('A', { name: 'browser_click', signal: AbortSignal.abort() })).rejects.toMatchObject(cancelledError('browser_click'));
    await expect(router.dispatch('A', { name: 'browser_click', signal: {} as AbortSignal })).rejects.toThrow('"signal" must be an AbortSignal');
    expect(browser.sent).toEqual([]);
  });

  it('leaves other sessions alone, and an answered command is not cancelled afterwards', async () => {
    const controller = new AbortController();
    const a = router.dispatch('A', { name: 'browser_click', signal: controller.signal });
    const b = router.dispatch('B', { name: 'browser_click' });
    const [ca, cb] = await Promise.all([browser.command(0), browser.command(1)]);
    browser.respond(ca, 'a');
    await expect(a).resolves.toBe('a');
    controller.abort();
    await settle();
    expect(browser.cancelled).toEqual([]);
    browser.respond(cb, 'b');
    await expect(b).resolves.toBe('b');
  });

  it('tells the browser to stop a command that timed out', async () => {
    const result = router.dispatch('A', { name: 'browser_evaluate' });
    const failed = expect(result).rejects.toMatchObject({ code: 'BMCP_ERR_TIMEOUT' });
    const command = await browser.command(0);
    await vi.advanceTimersByTimeAsync(10_000);
    await failed;
    expect(browser.cancelled).toEqual([{ wireId: command.wireId, reason: 'timeout' }]);
  });
});
