import { describe, expect, it } from 'vitest';
import { originPolicy, parseOriginPattern } from '../src/index.js';
import { refusedRequests } from '@browsermcp/testkit';
import { call, callError, refOf, useHarness } from './harness.js';

describe('origin list entries', () => {
  it("reads @playwright/mcp's spellings and two classes of documents without an origin", () => {
    expect(parseOriginPattern('https://Example.com/')).toBe('https://example.com');
    expect(parseOriginPattern('https://example.com/some/path')).toBe('https://example.com');
    expect(parseOriginPattern('http://localhost:*')).toBe('http://localhost:*');
    expect(parseOriginPattern('Example.COM')).toBe('example.com');
    expect(parseOriginPattern('data:')).toBe('data:');
    expect(parseOriginPattern('blob')).toBe('blob:');
    for (const bad of ['', 'https://', 'example.com:8080', 'ftp://*', '*.example.com', 'about:blank', 'http://a b']) {
      expect(() => parseOriginPattern(bad)).toThrow('is not an origin entry: use an origin (https://example.com)');
    }
  });

  it('reads the blocked list first, refuses all else with an allowed list, and lets opaque pages pass', () => {
    const check = originPolicy(['https://app.example', 'http://localhost:*', 'docs.example'], ['https://app.example', 'data:'])!;
    expect(check('https://app.example/x')).toBe("https://app.example is blocked by the gateway's --blocked-origins.");
    expect(check('http://localhost:4321/a')).toBeUndefined();
    expect(check('https://localhost/a')).toContain("https://localhost is not in the gateway's --allowed-origins");
    expect(check('http://docs.example:8080/')).toBeUndefined();
    expect(check('https://docs.example/')).toBeUndefined();
    expect(check('https://sub.docs.example/')).toContain('is not in');
    expect(check('data:text/html,hi')).toBe("data: documents are blocked by the gateway's --blocked-origins.");
    expect(check('blob:https://app.example/8c1e')).toBe(
      "blob: documents are not in the gateway's --allowed-origins (https://app.example, http://localhost:*, docs.example).",
    );
    expect(check('about:blank')).toBeUndefined();
    expect(check('chrome-error://chromewebdata/')).toBeUndefined();
    expect(originPolicy(['data:'])!('data:text/plain,x')).toBeUndefined();
    expect(originPolicy([], [])).toBeUndefined();
  });
});

describe('origin lists on every request (real Chromium)', () => {
  const h = useHarness();
  const blockedHost = () => new URL(h.server.blockedOrigin).host;
  const reachedBlocked = () => h.server.visits.filter((v) => v.startsWith(blockedHost()));

  it('refuses what a page reaches on its own: subresources, frames, fetches, links, redirects, location.href', async () => {
    const s = await h.session({ checkUrl: originPolicy([], ['blocked.localhost']) });
    const opened = await call(s, 'browser_navigate', { url: h.server.url('/ways-out.html') });
    expect(opened).toContain('- Page Title: Ways out');
    // The navigation answers at DOMContentLoaded: the image, frame and fetch refused around then are told in that
    // answer or, when the host hears of them a moment later, in the next one (one note each time, with the count).
    let told = opened;
    await expect
      .poll(async () => {
        told += await call(s, 'browser_evaluate', { function: "() => document.getElementById('fetch').textContent" });
        return told.includes('fetch: refused') ? refusedRequests(told).count : 0;
      })
      .toBe(3);
    expect(new Set(refusedRequests(told).origins)).toEqual(new Set([h.server.blockedOrigin]));

    const clicked = await call(s, 'browser_click', { target: refOf(opened, 'link "Leave by link"') });
    expect(clicked).toContain(`The page's request for ${h.server.blockedOrigin}/item/by-link was refused`);

    await call(s, 'browser_navigate', { url: h.server.url('/ways-out.html') });
    const redirected = await callError(s, 'browser_navigate', { url: h.server.url(`/redirect?to=${h.server.blockedOrigin}/item/by-redirect`) });
    expect(redirected).toContain(
      `was stopped at ${h.server.blockedOrigin}/item/by-redirect: ${h.server.blockedOrigin} is blocked by the gateway's --blocked-origins.`,
    );
    expect(redirected).not.toContain('### Note');

    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const scripted = await call(s, 'browser_evaluate', { function: `() => { location.href = '${h.server.blockedOrigin}/item/by-script'; }` });
    await expect
      .poll(async () => scripted + (await call(s, 'browser_tabs', { action: 'list' })))
      .toContain(`${h.server.blockedOrigin}/item/by-script was refused`);

    expect(reachedBlocked()).toEqual([]);
    // The same pages with no lists reach that origin: the refusals above were the lists' doing.
    const free = await h.session();
    await call(free, 'browser_navigate', { url: h.server.url('/ways-out.html') });
    await expect.poll(() => call(free, 'browser_evaluate', { function: "() => document.getElementById('fetch').textContent" })).toContain('fetch: reached');
    expect(reachedBlocked().length).toBeGreaterThan(0);
  });

  it('hands a refused navigation to the host, and the answer describes the page the host put in its place', async () => {
    const handed: string[] = [];
    const s = await h.session(
      { checkUrl: originPolicy([], ['blocked.localhost']) },
      {
        // As the extension does: once Chrome's error page is in, its own page with the reason.
        refusedNavigation: async (page, url) => {
          handed.push(url);
          await expect.poll(() => page.url()).toMatch(/^chrome-error:/);
          await page.goto('about:blank');
          await page.setContent('<title>Kept out</title><p>Not there</p>');
        },
      },
    );
    const opened = await call(s, 'browser_navigate', { url: h.server.url('/ways-out.html') });
    const clicked = await call(s, 'browser_click', { target: refOf(opened, 'link "Leave by link"') });
    expect(clicked).toContain(`The page's request for ${h.server.blockedOrigin}/item/by-link was refused`);
    expect(clicked).toContain('- Page Title: Kept out');
    expect(clicked).toContain('- paragraph: Not there');
    // Only the navigation: the page's image, frame and fetch refused on the way are not the host's to show.
    expect(handed).toEqual([`${h.server.blockedOrigin}/item/by-link`]);
  });

  it('with an allowed list, data: and blob: documents are their own class; a popup past the list is sent to about:blank', async () => {
    const s = await h.session({ checkUrl: originPolicy([h.server.origin]) });
    expect(await callError(s, 'browser_navigate', { url: 'data:text/html,<h1>hi</h1>' })).toContain(
      `data: documents are not in the gateway's --allowed-origins (${h.server.origin}).`,
    );
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_evaluate', {
      function: "() => { location.href = URL.createObjectURL(new Blob(['<title>From a blob</title><h1>blob page</h1>'], { type: 'text/html' })); }",
    });
    await expect.poll(() => s.tabs[0]!.page.url()).toBe('about:blank');
    expect(await call(s, 'browser_snapshot')).toMatch(/The page's request for blob:http:\/\/127\.0\.0\.1:\d+\/[\w-]+ was refused: blob: documents are not in/);

    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_evaluate', { function: `() => { window.open('${h.server.crossOrigin}/item/popup'); }` });
    await expect.poll(() => s.tabs.length).toBe(2);
    await expect.poll(() => s.tabs[1]!.page.url()).toBe('about:blank');
    expect(await call(s, 'browser_tabs', { action: 'list' })).toContain(`${h.server.crossOrigin}/item/popup was refused: ${h.server.crossOrigin} is not in`);
  });
});
