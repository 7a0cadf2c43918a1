import { buildDaemonApp } from '@browsermcp/daemon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectExtension, EXTENSION_ID, refIn, startExtensionHarness, textOf, waitFor, type ExtensionHarness } from './harness.js';

let h: ExtensionHarness;
let browserId: string;

beforeAll(async () => {
  h = await startExtensionHarness();
  browserId = await connectExtension(h);
});
afterAll(async () => {
  await h?.close();
});

describe('tabs and reconnects', () => {
  it('takes a tab opened by a session page into that session', async () => {
    await h.router.openSession('s1', { executorId: browserId, clientName: 'Popups' });
    const snap = textOf(await h.router.dispatch('s1', { name: 'browser_navigate', payload: { url: h.server.url('/index.html') } }));
    const clicked = textOf(await h.router.dispatch('s1', { name: 'browser_click', payload: { target: refIn(snap, 'Open item in new tab') } }));
    expect(clicked).toContain('### Open tabs');
    const list = textOf(await h.router.dispatch('s1', { name: 'browser_tabs', payload: { action: 'list' } }));
    expect(list).toMatch(/- 1: \(current\) \[Item 7\]/);
    // The popup opened in front (Chrome does that) and was sent behind the tab the person looks at.
    const w = await h.control();
    const active = await w.evaluate(async () => (await chrome.tabs.query({ active: true })).map((t) => t.url));
    expect(active).toEqual([`chrome-extension://${EXTENSION_ID}/options.html`]);
  });

  it('drops a tab the user closes from its session', async () => {
    const w = await h.control();
    const before = await h.router.dispatch('s1', { name: 'browser_tabs', payload: { action: 'list' } });
    expect(textOf(before)).toContain('Item 7');
    await w.evaluate(async () => {
      const [tab] = await chrome.tabs.query({ title: 'Item 7' });
      await chrome.tabs.remove(tab!.id!);
    });
    await expect.poll(async () => textOf(await h.router.dispatch('s1', { name: 'browser_tabs', payload: { action: 'list' } }))).not.toContain('Item 7');
  });

  it('keeps sessions and tabs across a daemon restart within the grace period', async () => {
    const port = Number(new URL(h.daemonUrl).port);
    await h.daemon.close();
    await waitFor(async () => (await h.router.stats()).executors === 0, 'the router to see the extension go');
    const commandWhileAway = await h.router.dispatch('s1', { name: 'browser_snapshot', payload: {} }).catch((e: Error) => e);
    expect(String(commandWhileAway)).toMatch(/browser (is )?disconnected/);
    h.daemon = await buildDaemonApp({ router: h.router, extensionIds: [EXTENSION_ID], heartbeatMs: 60_000, pairingSecret: h.pairingSecret });
    await h.daemon.listen({ port, host: '127.0.0.1' });
    await waitFor(async () => (await h.router.stats()).executors === 1, 'the extension to reconnect', 30_000);
    const snap = textOf(await h.router.dispatch('s1', { name: 'browser_snapshot', payload: {} }));
    expect(snap).toContain('button "Click me"');
  });
});
