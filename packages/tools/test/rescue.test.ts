import { describe, expect, it } from 'vitest';
import { callTool, ToolCalls, allTools, type ToolSession } from '../src/index.js';
import { call, refOf, textOf, useHarness } from './harness.js';
import type { Tab } from '../src/tab/tab.js';

// Calls that are stopped (cancelled, timed out) and pages that fight back: the tab is usable afterwards.
const h = useHarness();

/** A download is requested once, its navigation answers aborted, and the page stays where it was. */
async function opensDownloadOnce(s: ToolSession): Promise<void> {
  await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
  const before = h.server.requests.filter((p) => p === '/download').length;
  const answer = await call(s, 'browser_navigate', { url: h.server.url('/download') });
  expect(answer).toContain(`Navigation to ${h.server.url('/download')} was aborted by the page (a download or a redirect that was cancelled).`);
  expect(answer).toContain(`- Page URL: ${h.server.url('/form.html')}`);
  expect(h.server.requests.filter((p) => p === '/download').length - before).toBe(1);
}

/** A CDP event as Chrome sends it, the fields these tests read. */
type ChromeEvent = {
  url?: string;
  requestId?: string;
  request?: { url: string };
  frame?: { parentId?: string; loaderId: string };
  loaderId?: string;
  name?: string;
};

/**
 * Chrome's loss, where it happens: events for which `drop` says true never reach the tab's session from Chrome. What
 * the tab itself sends through its session (lost-commit.ts, abort-request.ts) still does. Puppeteer's session takes
 * Chrome's messages in `onMessage` (internal; puppeteer-core is pinned).
 */
function dropFromChrome(tab: Tab, drop: (method: string, event: ChromeEvent) => boolean): void {
  const session = tab.cdp() as unknown as { onMessage(message: { method?: string; params?: ChromeEvent }): void };
  const onMessage = session.onMessage.bind(session);
  session.onMessage = (message) => {
    if (message.method === undefined || !drop(message.method, message.params ?? {})) onMessage(message);
  };
}

/**
 * The commit of the next main-frame document whose address `lose` picks never reaches the session: no
 * Page.frameNavigated, nor the lifecycle events named. Returns what was lost.
 */
function loseCommit(tab: Tab, lose: (url: string) => boolean, lifecycle: string[]): string[] {
  const dropped: string[] = [];
  let loader: string | undefined;
  dropFromChrome(tab, (method, event) => {
    if (method === 'Page.frameStartedNavigating' && loader === undefined && lose(event.url ?? '')) loader = event.loaderId;
    const commit = method === 'Page.frameNavigated' && event.frame?.parentId === undefined && event.frame?.loaderId === loader;
    const step = method === 'Page.lifecycleEvent' && event.loaderId === loader && lifecycle.includes(event.name ?? '');
    if (loader === undefined || !(commit || step)) return false;
    dropped.push(commit ? method : (event.name ?? ''));
    return true;
  });
  return dropped;
}

describe('a stopped call', () => {
  it('answers at once, stops a spinning script, and the next call hears what was done', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const calls = new ToolCalls();
    const spin = calls.run('w1', s, 'browser_evaluate', { function: '() => { while (true) {} }' }, allTools);
    await new Promise((r) => setTimeout(r, 300));
    expect(calls.stop('w1', 'timeout')).toBe(true);
    const stopped = await spin;
    expect(stopped.isError).toBe(true);
    expect(textOf(stopped)).toContain("browser_evaluate ran past the command timeout and was stopped; to free the tab, browsermcp stopped the page's script");
    const next = await calls.run('w2', s, 'browser_evaluate', { function: '() => document.title' }, allTools);
    expect(textOf(next)).toContain('"Fixture home"');
    expect(textOf(next)).toContain('browser_evaluate ran past the command timeout and was stopped');
  });

  it('never starts when it was stopped before its turn, and a wait ends when stopped', async () => {
    const s = await h.session();
    const calls = new ToolCalls();
    expect(calls.stop('early', 'cancelled')).toBe(false);
    const early = await calls.run('early', s, 'browser_navigate', { url: h.server.url('/form.html') }, allTools);
    expect(textOf(early)).toBe('### Error\nbrowser_navigate was cancelled by its caller.');
    expect(s.tabs).toHaveLength(0); // nothing was opened
    const wait = calls.run('w', s, 'browser_wait_for', { time: 60 }, allTools);
    setTimeout(() => calls.stop('w', 'cancelled'), 100);
    expect(textOf(await wait)).toContain('browser_wait_for was cancelled by its caller');
  });
});

describe('browser_navigate on a page that fights back', () => {
  it('dismisses an alert loop', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/hostile-alerts.html') });
    expect(await call(s, 'browser_click', { target: 'button' })).toContain('"alert" dialog with message "again"');
    const left = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(left, left).toContain('- Page Title: Fixture home');
    expect(left).toMatch(/browsermcp dismissed (a dialog|[\d,]+ dialogs)/);
  });

  it('leaves a page that asks to stay, one kept busy by its script, and one that navigates itself', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/hostile-unload.html') });
    expect(await call(s, 'browser_navigate', { url: h.server.url('/index.html') })).toContain('- Page Title: Fixture home');
    await call(s, 'browser_navigate', { url: h.server.url('/hostile-busy.html') });
    await call(s, 'browser_click', { target: 'button' });
    const left = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(left).toContain('- Page Title: Fixture home');
    // Its own navigation can commit while ours is on its way (more often on a loaded machine): a few rounds.
    for (let round = 0; round < 5; round++) {
      await callTool(s, 'browser_navigate', { url: h.server.url('/hostile-hop.html?go') });
      const answer = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
      expect(answer, `${answer}\nnow at ${(await s.currentTab()).page.url()}`).toContain('- Page Title: Fixture home');
    }
    expect(await call(s, 'browser_evaluate', { function: '() => document.title' })).toContain('"Fixture home"');
  });

  it('opens a download once: the navigation is aborted, the page stays, and it is not taken for the page navigating itself', async () => {
    await opensDownloadOnce(await h.session());
  });

  it('opens a redirecting address once: a redirect is not the page navigating itself', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const before = h.server.requests.filter((p) => p === '/redirect').length;
    const landed = await call(s, 'browser_navigate', { url: h.server.url('/redirect?to=/index.html') });
    expect(landed).toContain('- Page Title: Fixture home');
    expect(landed).not.toContain('browsermcp');
    expect(h.server.requests.filter((p) => p === '/redirect').length - before).toBe(1);
    // Nor is the browser's own spelling of an address: a root without its slash, a #fragment it never sends.
    const count = (path: string) => h.server.requests.filter((p) => p === path).length;
    const [roots, pages] = [count('/'), count('/index.html')];
    expect(await call(s, 'browser_navigate', { url: h.server.origin })).toContain('- Page Title: Fixture home');
    expect(await call(s, 'browser_navigate', { url: h.server.url('/index.html#top') })).toContain('- Page Title: Fixture home');
    expect([count('/') - roots, count('/index.html') - pages]).toEqual([1, 1]);
  });
});

describe("browser_navigate where every request is intercepted (an origin list; always in the person's browser)", () => {
  // The page's own navigations are refused while ours is on its way; the document ours brings may still navigate.
  const intercepted = () => h.session({ checkUrl: () => undefined });

  it('leaves a page that navigates itself, round after round', async () => {
    const s = await intercepted();
    for (let round = 0; round < 5; round++) {
      await callTool(s, 'browser_navigate', { url: h.server.url('/hostile-hop.html?go') });
      expect(await call(s, 'browser_navigate', { url: h.server.url('/index.html') })).toContain('- Page Title: Fixture home');
    }
    expect(await call(s, 'browser_evaluate', { function: '() => document.title' })).toContain('"Fixture home"');
  });

  it('takes a document whose commit Chrome never told of (seen under load beside a page navigating itself)', async () => {
    const s = await h.session({ checkUrl: () => undefined, navigationTimeoutMs: 5000 });
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const tab = await s.currentTab();
    const lost = loseCommit(tab, (url) => url.endsWith('/index.html?again'), ['init']);
    const again = h.server.url('/index.html?again');
    const answer = await call(s, 'browser_navigate', { url: again });
    expect(lost.sort()).toEqual(['Page.frameNavigated', 'init']);
    expect(answer).toContain(`- Page URL: ${again}`);
    expect(answer).toContain('- Page Title: Fixture home');
    expect(tab.page.url()).toBe(again);
    // The page goes on as any other: a click lands.
    await call(s, 'browser_click', { target: refOf(answer, 'link "Form"') });
    await expect.poll(() => tab.page.url()).toBe(h.server.url('/form.html'));
  });

  it("ends a navigation whose page's own request, refused, Chrome never tells the end of", async () => {
    const s = await intercepted();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    // Chrome's loss: the refused requests of the page's own navigations never end for the session. Puppeteer takes the
    // last navigation request it sees for ours: here one of the page's, which asks every 20 ms while ours waits for a
    // slow answer (unless its own hop cuts ours off first, more often on a loaded machine: rounds until three had it).
    const insisted = new Set<string>();
    let dropped = 0;
    dropFromChrome(await s.currentTab(), (method, event) => {
      if (method === 'Network.requestWillBeSent' && event.request?.url.includes('/hostile-insist.html?')) insisted.add(event.requestId ?? '');
      if (method !== 'Network.loadingFailed' || !insisted.has(event.requestId ?? '')) return false;
      dropped++;
      return true;
    });
    const slow = h.server.url('/api/slow?ms=400');
    let rounds = 0;
    for (let round = 0; round < 10 && rounds < 3; round++) {
      await callTool(s, 'browser_navigate', { url: h.server.url('/hostile-insist.html?go') });
      const before = dropped;
      expect(await call(s, 'browser_navigate', { url: slow })).toContain(`- Page URL: ${slow}`);
      if (dropped > before) rounds++;
    }
    expect(rounds).toBe(3);
  });

  it('stops nothing, and says nothing of it, when a new tab is only slow to answer (as under load)', async () => {
    const s = await h.session();
    const tab = await s.currentTab();
    // The blank page's next script waits a second: as a new tab's renderer on a loaded machine, past ANSWER_MS.
    const cdp = tab.cdp();
    await cdp.send('Debugger.enable');
    await cdp.send('Debugger.pause');
    const resumed = new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => cdp.send('Debugger.resume').catch(() => undefined));
    const answer = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await resumed;
    await cdp.send('Debugger.disable');
    expect(answer).not.toContain('browsermcp stopped');
    expect(answer).toContain('- Page Title: Fixture home');
  });

  it('takes about:blank whose commit Chrome never told of, when it leaves a busy page for it', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/hostile-busy.html') });
    await call(s, 'browser_click', { target: 'button' });
    // As seen: of about:blank only its network-idle events arrived.
    const lost = loseCommit(await s.currentTab(), (url) => url === 'about:blank', ['init', 'DOMContentLoaded', 'load']);
    expect(await call(s, 'browser_navigate', { url: h.server.url('/index.html') })).toContain('- Page Title: Fixture home');
    expect(lost.sort()).toEqual(['DOMContentLoaded', 'Page.frameNavigated', 'init', 'load']);
  });

  it('lets the page it opens move on by script as it loads, and takes a download for a download', async () => {
    const s = await intercepted();
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const moved = await call(s, 'browser_navigate', { url: h.server.url('/script-redirect.html') });
    await expect.poll(async () => call(s, 'browser_evaluate', { function: '() => location.search' })).toContain('"?from=script"');
    expect(moved).not.toContain('browsermcp closed its tab');
    await opensDownloadOnce(s);
  });
});
