import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stopExtensionWorker } from '@browsermcp/testkit';
import { connectExtension, EXTENSION_ID, refIn, startExtensionHarness, textOf, waitFor, type ExtensionHarness } from './harness.js';

// A file of its own: a fresh browser whose worker no test has evaluated in (a DevTools session on the worker
// target holds a restarting worker at "starting").
let h: ExtensionHarness;
let page: Page;
const BROWSER = 'ext-restart';

beforeAll(async () => {
  h = await startExtensionHarness();
  await connectExtension(h, BROWSER);
  // Opened before the session has tabs, so Chrome does not name one of them as this tab's opener.
  page = await h.browser.newPage();
});
afterAll(async () => {
  await h?.close();
});

it('comes back after Chrome stops its idle service worker, with its sessions and tabs', async () => {
  await h.router.openSession('s1', { executorId: BROWSER, clientName: 'Restarts' });
  const snap = textOf(await h.router.dispatch('s1', { name: 'browser_navigate', payload: { url: h.server.url('/index.html') } }));
  await h.router.dispatch('s1', { name: 'browser_click', payload: { target: refIn(snap, 'button "Click me"') } });
  await stopExtensionWorker(page, EXTENSION_ID);
  await waitFor(async () => (await h.router.stats()).executors === 0, 'the daemon to see the worker go');
  const whileAway = await h.router.dispatch('s1', { name: 'browser_snapshot', payload: {} }).catch((e: Error) => e);
  expect(String(whileAway)).toMatch(/browser (is )?disconnected/);
  // Any extension event wakes the worker; opening the popup is what a user would do (an alarm does it every 30 s).
  await page.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
  await waitFor(async () => (await h.router.stats()).executors === 1, 'the extension to reconnect', 20_000);
  const after = textOf(await h.router.dispatch('s1', { name: 'browser_snapshot', payload: {} }));
  expect(after).toContain('button "Clicked 1 times"');
});
