import { createEvent, ErrorCodes, ExtensionEvents } from '@browsermcp/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionRouter } from '../../src/index';
import { type FakeExecutor, connectedRouter } from '../helpers/fake-executor';

let router: SessionRouter;
let browser: FakeExecutor;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  await router.close();
  vi.useRealTimers();
});

async function start(options: ConstructorParameters<typeof SessionRouter>[0] = {}): Promise<void> {
  ({ router, browser } = await connectedRouter(options));
  await router.openSession('A');
}

describe('command timeouts', () => {
  it('holds a command the browser says waits for the person: its timeout restarts from then', async () => {
    await start({ commandTimeoutMs: 1_000 });
    const result = router.dispatch('A', { name: 'browser_navigate' });
    let settled = false;
    result.catch(() => (settled = true));
    const command = await browser.command(0);
    await vi.advanceTimersByTimeAsync(900);
    expect(router.holdCommands('browser-1', 'A', 120_000)).toBe(1);
    expect(router.holdCommands('browser-2', 'A', 120_000)).toBe(0); // another browser cannot hold it
    await vi.advanceTimersByTimeAsync(60_000);
    expect(settled).toBe(false);
    browser.respond(command, 'navigated');
    await expect(result).resolves.toBe('navigated');
  });

  it('holds a command while its browser starts, then gives it its whole timeout again (waiting_for_browser)', async () => {
    await start({ commandTimeoutMs: 1_000 });
    const result = router.dispatch('A', { name: 'browser_navigate' });
    let error: unknown;
    result.catch((e: unknown) => (error = e));
    await browser.command(0);
    const waiting = (ms: number) => createEvent({ sessionId: 'A', name: ExtensionEvents.waitingForBrowser, payload: { message: 'Starting the browser', ms } });
    await router.handleEvent('browser-1', waiting(30_000));
    await vi.advanceTimersByTimeAsync(20_000); // a slow start, past the 1 s timeout
    expect(error).toBeUndefined();
    await router.handleEvent('browser-1', waiting(1_000)); // started: the command's own time runs from now
    await vi.advanceTimersByTimeAsync(5_000);
    expect(error).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1_100);
    expect(error).toMatchObject({ code: 'BMCP_ERR_TIMEOUT' });
  });

  it('rejects a command with a Timeout error once it has run for 90 s', async () => {
    await start();
    const result = router.dispatch('A', { name: 'browser_click' });
    let settled = false;
    result.catch(() => (settled = true));
    const failed = expect(result).rejects.toMatchObject({
      code: 'BMCP_ERR_TIMEOUT',
      rpcCode: ErrorCodes.Timeout,
      statusCode: 504,
      message: expect.stringMatching(/^browser_click timed out after 90 s and was stopped/) as unknown,
    });
    await browser.command(0);
    await vi.advanceTimersByTimeAsync(89_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await failed;
  });

  it("sends the session's next command once the one before it timed out", async () => {
    await start();
    const first = router.dispatch('A', { name: 'browser_wait_for' });
    const failed = expect(first).rejects.toMatchObject({ code: 'BMCP_ERR_TIMEOUT' });
    const second = router.dispatch('A', { name: 'browser_snapshot' });
    await browser.command(0);
    await vi.advanceTimersByTimeAsync(90_000);
    await failed;
    const next = await browser.command(1);
    expect(next.name).toBe('browser_snapshot');
    browser.respond(next, 'snapshot');
    await expect(second).resolves.toBe('snapshot');
  });

  it('drops a response that arrives after its command timed out', async () => {
    const warn = vi.fn();
    await start({ logger: { warn } });
    const first = router.dispatch('A', { name: 'browser_wait_for' });
    const failed = expect(first).rejects.toMatchObject({ code: 'BMCP_ERR_TIMEOUT' });
    const second = router.dispatch('A', { name: 'browser_snapshot' });
    const late = await browser.command(0);
    await vi.advanceTimersByTimeAsync(90_000);
    await failed;
    const next = await browser.command(1);

    expect(browser.respond(late, 'too late')).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ wireId: late.wireId }), expect.any(String));
    browser.respond(next, 'on time');
    await expect(second).resolves.toBe('on time');
  });

  it("uses the router's commandTimeoutMs option", async () => {
    await start({ commandTimeoutMs: 5_000 });
    const result = router.dispatch('A', { name: 'browser_click' });
    const failed = expect(result).rejects.toMatchObject({ message: expect.stringContaining('after 5 s') as unknown });
    await browser.command(0);
    await vi.advanceTimersByTimeAsync(5_000);
    await failed;
  });

  it("lets one command's timeoutMs override the router's", async () => {
    await start();
    const result = router.dispatch('A', { name: 'browser_wait_for', timeoutMs: 180_000 });
    let settled = false;
    result.catch(() => (settled = true));
    const failed = expect(result).rejects.toMatchObject({
      message: expect.stringContaining('after 3 minutes') as unknown,
    });
    await browser.command(0);
    await vi.advanceTimersByTimeAsync(179_000);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    await failed;
  });

  it('refuses a commandTimeoutMs that is not a positive number of ms', () => {
    router = new SessionRouter();
    expect(() => new SessionRouter({ commandTimeoutMs: 0 })).toThrow(expect.objectContaining({ code: 'BMCP_ERR_INVALID_ARGUMENT' }));
    expect(() => new SessionRouter({ commandTimeoutMs: Number.NaN })).toThrow(/commandTimeoutMs/);
  });
});
