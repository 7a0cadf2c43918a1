import type { EventEnvelope } from '@browsermcp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectExtension, refIn, startExtensionHarness, textOf, type ExtensionHarness } from './harness.js';

let h: ExtensionHarness;
let browserId: string;

beforeAll(async () => {
  h = await startExtensionHarness();
  browserId = await connectExtension(h);
});
afterAll(async () => {
  await h?.close();
});

async function groups(): Promise<Array<{ title?: string }>> {
  const w = await h.control();
  return w.evaluate(() => chrome.tabGroups.query({}));
}

describe('the extension in a real browser', () => {
  it('runs navigate, snapshot and click for a session, in a tab group named after the client', async () => {
    await h.router.openSession('s1', { executorId: browserId, clientName: 'Agent One' });
    const nav = textOf(await h.router.dispatch('s1', { name: 'browser_navigate', payload: { url: h.server.url('/index.html') } }));
    expect(nav).toContain('- Page Title: Fixture home');
    const snap = textOf(await h.router.dispatch('s1', { name: 'browser_snapshot', payload: {} }));
    const clicked = textOf(await h.router.dispatch('s1', { name: 'browser_click', payload: { target: refIn(snap, 'button "Click me"') } }));
    expect(clicked).toContain('button "Clicked 1 times"');
    await expect.poll(async () => (await groups()).map((g) => g.title)).toContain('Agent One');
    // A call without arguments is answered with what is missing (not left unanswered until the router's timeout).
    const bare = textOf(await h.router.dispatch('s1', { name: 'browser_webmcp_call', timeoutMs: 10_000 }));
    expect(bare).toContain('Invalid arguments for browser_webmcp_call');
  });

  it('keeps sessions apart: own tabs, a foreign tab refused, events only to the owner', async () => {
    await h.router.openSession('s2', { executorId: browserId, clientName: 'Agent Two' });
    const events: EventEnvelope[] = [];
    h.router.onEvent('s2', (e) => events.push(e));
    const ownTab = await h.router.dispatch('s2', { name: 'browser_navigate', payload: { url: h.server.url('/form.html') } });
    expect(textOf(ownTab)).toContain('- Page Title: Form');
    const s1Tabs = (await h.router.getSession('s1'))!;
    expect(s1Tabs).toBeDefined();
    const s1Tab = (await h.router.dispatch('s1', { name: 'browser_tabs', payload: { action: 'list' } })) as unknown;
    expect(textOf(s1Tab)).toContain('Fixture home');
    expect(textOf(s1Tab)).not.toContain('[Form]');
    await h.router.dispatch('s1', { name: 'browser_evaluate', payload: { function: "() => console.log('only for s1')" } });
    await h.router.dispatch('s2', { name: 'browser_evaluate', payload: { function: "() => console.log('only for s2')" } });
    await expect.poll(() => events.map((e) => JSON.stringify(e.payload)).join()).toContain('only for s2');
    expect(events.map((e) => JSON.stringify(e.payload)).join()).not.toContain('only for s1');
    await expect.poll(async () => (await groups()).map((g) => g.title)).toContain('Agent Two');
  });

  it('answers context tools and chrome:// pages with clear errors', async () => {
    const ctx = textOf(await h.router.dispatch('s1', { name: 'browser_context_create', payload: { name: 'uk' } }));
    expect(ctx).toContain('Named browser contexts need a browser that browsermcp launched');
    const chromePage = textOf(await h.router.dispatch('s1', { name: 'browser_navigate', payload: { url: 'chrome://settings' } }));
    expect(chromePage).toContain('"chrome:" scheme are not allowed');
  });

  it('says so when the user takes a session tab to chrome://, and browser_navigate brings it back', async () => {
    await h.router.openSession('s3', { executorId: browserId, clientName: 'Agent Three' });
    const url = h.server.url('/index.html?s3');
    await h.router.dispatch('s3', { name: 'browser_navigate', payload: { url } });
    const w = await h.control();
    const tabId = await w.evaluate((u) => chrome.tabs.query({ url: u }).then((tabs) => tabs[0]!.id!), url);
    // Chrome detaches the extension's debugger from a tab that shows one of its own pages.
    await w.evaluate((id) => chrome.tabs.update(id, { url: 'chrome://version' }), tabId);
    await expect
      .poll(async () => textOf(await h.router.dispatch('s3', { name: 'browser_snapshot', payload: {} })))
      .toContain('browsermcp cannot control chrome://version');
    const stuck = textOf(await h.router.dispatch('s3', { name: 'browser_snapshot', payload: {} }));
    expect(stuck).toContain('browser_navigate takes the tab to a web page again');
    const back = textOf(await h.router.dispatch('s3', { name: 'browser_navigate', payload: { url: h.server.url('/index.html?back') } }));
    expect(back).toContain('- Page Title: Fixture home');
    const clicked = textOf(await h.router.dispatch('s3', { name: 'browser_click', payload: { target: refIn(back, 'button "Click me"') } }));
    expect(clicked).toContain('button "Clicked 1 times"');
    // Still the same tab, still in the session's group.
    const tabs = textOf(await h.router.dispatch('s3', { name: 'browser_tabs', payload: { action: 'list' } }));
    expect(tabs.match(/^- \d+:/gm)).toHaveLength(1);
    expect(await w.evaluate((id) => chrome.tabs.get(id).then((t) => t.url), tabId)).toBe(h.server.url('/index.html?back'));
    await h.router.closeSession('s3');
    // The extension closes the tab after the daemon tells it: wait, so the next test counts tabs from a still state.
    await expect
      .poll(() =>
        w.evaluate(
          (id) =>
            chrome.tabs.get(id).then(
              () => true,
              () => false,
            ),
          tabId,
        ),
      )
      .toBe(false);
  });

  it('closes the session tabs when the session ends', async () => {
    const w = await h.control();
    const count = () => w.evaluate(() => chrome.tabs.query({}).then((t) => t.length));
    const before = await count();
    await h.router.closeSession('s2');
    await expect.poll(count).toBe(before - 1);
  });
});
