import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stopExtensionWorker } from '@browsermcp/testkit';
import { connectedBrowserId, connectExtension, EXTENSION_ID, refIn, startExtensionHarness, textOf, waitFor, type ExtensionHarness } from './harness.js';

// A file of its own: a fresh browser whose worker no test has evaluated in (a DevTools session on the worker
// target holds a restarting worker at "starting").
let h: ExtensionHarness;
let page: Page;
let browserId: string;

beforeAll(async () => {
  h = await startExtensionHarness();
  browserId = await connectExtension(h);
  // Opened before the session has tabs, so Chrome does not name one of them as this tab's opener.
  page = await h.browser.newPage();
});
afterAll(async () => {
  await h?.close();
});

it('comes back after Chrome stops its idle service worker, with its sessions and tabs', async () => {
  await h.router.openSession('s1', { executorId: browserId, clientName: 'Restarts' });
  const snap = textOf(await h.router.dispatch('s1', { name: 'browser_navigate', payload: { url: h.server.url('/index.html') } }));
  await h.router.dispatch('s1', { name: 'browser_click', payload: { target: refIn(snap, 'button "Click me"') } });
  await stopExtensionWorker(page, EXTENSION_ID);
  await waitFor(async () => (await h.router.stats()).executors === 0, 'the daemon to see the worker go');
  const whileAway = await h.router.dispatch('s1', { name: 'browser_snapshot', payload: {} }).catch((e: Error) => e);
  expect(String(whileAway)).toMatch(/browser (is )?disconnected/);
  // Any extension event wakes the worker; opening the popup is what a user would do (an alarm does it every 30 s).
  await page.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
  await waitFor(async () => (await h.router.stats()).executors === 1, 'the extension to reconnect', 20_000);
  // Under the same id: the worker that starts again reads the key it kept, it does not make another.
  expect(connectedBrowserId(h)).toBe(browserId);
  const after = textOf(await h.router.dispatch('s1', { name: 'browser_snapshot', payload: {} }));
  expect(after).toContain('button "Clicked 1 times"');
});

it('tells the agent when its browser forgot the session (a restart), and does not ask again what the person allowed', async () => {
  type Chrome = {
    chrome: {
      storage: { local: { set(v: object): Promise<void> }; session: { clear(): Promise<void> } };
      runtime: { sendMessage(m: object): Promise<{ sessions: Array<{ sessionId: string; approval: string }> }> };
    };
  };
  const control = await h.control();
  await control.evaluate(() => (globalThis as unknown as Chrome).chrome.storage.local.set({ askBeforeNewAgents: true, allowedAgents: [] }));
  try {
    await h.router.openSession('s2', { executorId: browserId, clientName: 'Forgotten', agent: 'API key 0000aaaa' });
    const first = h.router.dispatch('s2', { name: 'browser_navigate', payload: { url: h.server.url('/index.html?forgotten') } });
    const approvalOf = () =>
      control.evaluate(
        async () =>
          (await (globalThis as unknown as Chrome).chrome.runtime.sendMessage({ type: 'status' })).sessions.find((s) => s.sessionId === 's2')?.approval,
      );
    await waitFor(async () => (await approvalOf()) === 'pending', 'the agent to ask the person');
    // The person answers Allow once, as the popup sends it.
    await control.evaluate(() => (globalThis as unknown as Chrome).chrome.runtime.sendMessage({ type: 'decide', sessionId: 's2', decision: 'once' }));
    expect(textOf(await first)).toContain('Fixture home');

    // The browser forgets its sessions, as a restart does: its session storage cleared, then the worker stopped, so
    // that the worker that starts next finds nothing. (Cleared after the stop, it raced the start: Chrome starts the
    // worker again at once, and on a loaded machine it read its tabs back before they were cleared.)
    await control.evaluate(() => (globalThis as unknown as Chrome).chrome.storage.session.clear());
    await stopExtensionWorker(page, EXTENSION_ID);
    await waitFor(async () => (await h.router.stats()).executors === 0, 'the daemon to see the worker go');
    await page.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
    await waitFor(async () => (await h.router.stats()).executors === 1, 'the extension to reconnect', 20_000);
    // Allowed once in this session, it is still allowed (the popup does not show it waiting) and not asked again.
    await waitFor(async () => (await approvalOf()) === 'allowed', 'the session to come back allowed');
    const after = textOf(await h.router.dispatch('s2', { name: 'browser_snapshot', payload: {} }));
    expect(after).toContain("The person's browser restarted (or browsermcp was reloaded in it) since your last call, and this session's tabs went with it");

    // A session announced again with no answer on record has not asked anything yet: not shown as waiting.
    await h.router.openSession('s3', { executorId: browserId, clientName: 'Quiet', agent: 'API key 0000bbbb' });
    await waitFor(
      async () =>
        await control.evaluate(async () =>
          (await (globalThis as unknown as Chrome).chrome.runtime.sendMessage({ type: 'status' })).sessions.some((s) => s.sessionId === 's3'),
        ),
      'the new session',
    );
    expect(
      await control.evaluate(
        async () =>
          (await (globalThis as unknown as Chrome).chrome.runtime.sendMessage({ type: 'status' })).sessions.find((s) => s.sessionId === 's3')?.approval,
      ),
    ).toBe('unasked');
  } finally {
    await control.evaluate(() => (globalThis as unknown as Chrome).chrome.storage.local.set({ askBeforeNewAgents: false }));
  }
});
