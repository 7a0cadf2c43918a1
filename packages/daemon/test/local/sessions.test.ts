import { createCommand } from '@browsermcp/protocol';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { evaluated, startLocal, type LocalRig } from '../helpers/local.js';

// One launched Chromium for the whole file; each test uses its own sessions.
let rig: LocalRig;
let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer();
  rig = await startLocal();
});

afterAll(async () => {
  await rig?.close();
  await server?.close();
});

it('runs two sessions in parallel, each on its own page', async () => {
  await rig.router.openSession('par-a');
  await rig.router.openSession('par-b');
  const [a, b] = await Promise.all([
    rig.text('par-a', 'browser_navigate', { url: server.url('/item/1') }),
    rig.text('par-b', 'browser_navigate', { url: server.url('/item/2') }),
  ]);
  expect(a).toContain('Page Title: Item 1');
  expect(b).toContain('Page Title: Item 2');
  // Each session's next command still runs on its own page.
  expect(await rig.text('par-a', 'browser_snapshot')).toContain('/item/1');
  expect(await rig.text('par-b', 'browser_snapshot')).toContain('/item/2');
  await rig.router.closeSession('par-a');
  await rig.router.closeSession('par-b');
});

it('answers the command waiting for it from its send: a call enters the router once, never called back with the answer', async () => {
  await rig.router.openSession('direct');
  const calledBack = vi.spyOn(rig.router, 'handleResponse');
  try {
    expect(await rig.text('direct', 'browser_navigate', { url: server.url('/item/3') })).toContain('Page Title: Item 3');
    expect(calledBack).not.toHaveBeenCalled();
  } finally {
    calledBack.mockRestore();
    await rig.router.closeSession('direct');
  }
});

it('keeps a cookie set in one session out of another session', async () => {
  await rig.router.openSession('iso-a');
  await rig.router.openSession('iso-b');
  await rig.text('iso-a', 'browser_navigate', { url: server.url('/index.html') });
  await rig.text('iso-a', 'browser_evaluate', { function: "() => { document.cookie = 'who=alice; path=/'; }" });
  await rig.text('iso-b', 'browser_navigate', { url: server.url('/index.html') });

  expect(await rig.text('iso-a', 'browser_navigate', { url: server.url('/echo-cookie') })).toContain('who=alice');
  const seenByB = await rig.text('iso-b', 'browser_evaluate', { function: '() => fetch("/echo-cookie").then((r) => r.text())' });
  expect(evaluated(seenByB)).toBe('');
  expect(evaluated(await rig.text('iso-b', 'browser_evaluate', { function: '() => document.cookie' }))).toBe('');
  await rig.router.closeSession('iso-a');
  await rig.router.closeSession('iso-b');
});

it('closes the session’s tabs and browser context when the session closes', async () => {
  const browser = await rig.executor.browser.get();
  const contextsBefore = browser.browserContexts().length;
  await rig.router.openSession('closing');
  await rig.text('closing', 'browser_navigate', { url: server.url('/item/3') });
  await rig.text('closing', 'browser_tabs', { action: 'new', url: server.url('/item/4') });
  expect(browser.browserContexts()).toHaveLength(contextsBefore + 1);
  const pages = await browser.pages();
  expect(pages.map((p) => p.url())).toEqual(expect.arrayContaining([server.url('/item/3'), server.url('/item/4')]));

  await rig.router.closeSession('closing');
  expect(browser.browserContexts()).toHaveLength(contextsBefore);
  const urls = (await browser.pages()).map((p) => p.url());
  expect(urls).not.toContain(server.url('/item/3'));
  expect(urls).not.toContain(server.url('/item/4'));
});

it('leaves no browser context behind when a session closes while its first command is creating it', async () => {
  const browser = await rig.executor.browser.get();
  const contextsBefore = browser.browserContexts().length;
  // Straight to the executor, so the close lands while the command's context is being created.
  rig.executor.send(createCommand({ sessionId: 'early-close', name: 'browser_snapshot', payload: {} }), 30_000);
  await rig.executor.closeSession('early-close');
  expect(browser.browserContexts()).toHaveLength(contextsBefore);
  // A full round trip of another session through the same CDP connection: anything the first command still did
  // has reached the browser by now.
  await rig.router.openSession('after-early-close');
  await rig.text('after-early-close', 'browser_snapshot');
  await rig.router.closeSession('after-early-close');
  expect(browser.browserContexts()).toHaveLength(contextsBefore);
});

it('makes a tab a command opened the session’s current tab, so it can be named', async () => {
  await rig.router.openSession('tabs');
  await rig.text('tabs', 'browser_navigate', { url: server.url('/item/5') });
  const first = (await rig.router.getSession('tabs'))?.currentTabId;
  await rig.text('tabs', 'browser_tabs', { action: 'new', url: server.url('/item/6') });
  const second = (await rig.router.getSession('tabs'))?.currentTabId;
  expect(first).toBeDefined();
  expect(second).toBeDefined();
  expect(second).not.toBe(first);

  const back = (await rig.router.dispatch('tabs', { name: 'browser_snapshot', payload: {}, tabId: first! })) as {
    content: Array<{ text: string }>;
  };
  expect(back.content[0]!.text).toContain('/item/5');
  await rig.router.closeSession('tabs');
});

it('refuses a command naming another session’s tab', async () => {
  await rig.router.openSession('own-a');
  await rig.router.openSession('own-b');
  await rig.text('own-a', 'browser_navigate', { url: server.url('/item/7') });
  const tabOfA = (await rig.router.getSession('own-a'))?.currentTabId;
  expect(tabOfA).toBeDefined();
  await expect(rig.router.dispatch('own-b', { name: 'browser_snapshot', payload: {}, tabId: tabOfA! })).rejects.toMatchObject({
    code: 'BMCP_ERR_TAB_OWNED',
    statusCode: 409,
  });
  await rig.router.closeSession('own-a');
  await rig.router.closeSession('own-b');
});
