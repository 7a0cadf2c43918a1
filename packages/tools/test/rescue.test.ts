import { describe, expect, it } from 'vitest';
import { callTool, ToolCalls, allTools, type ToolSession } from '../src/index.js';
import { call, textOf, useHarness } from './harness.js';

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

  it('lets the page it opens move on by script as it loads, and takes a download for a download', async () => {
    const s = await intercepted();
    await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    const moved = await call(s, 'browser_navigate', { url: h.server.url('/script-redirect.html') });
    await expect.poll(async () => call(s, 'browser_evaluate', { function: '() => location.search' })).toContain('"?from=script"');
    expect(moved).not.toContain('browsermcp closed its tab');
    await opensDownloadOnce(s);
  });
});
