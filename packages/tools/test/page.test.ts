import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { callTool, MAX_ANSWER_CHARS } from '../src/index.js';
import { call, callError, refOf, useHarness } from './harness.js';

const h = useHarness();

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const resultOf = (text: string) => text.split('\n\n### ')[0]!;

describe('browser_navigate', () => {
  it('refuses javascript:, file: and invalid URLs, and reports unreachable sites', async () => {
    const s = await h.session();
    expect(await callError(s, 'browser_navigate', { url: 'javascript:alert(1)' })).toContain('"javascript:" scheme are not allowed');
    expect(await callError(s, 'browser_navigate', { url: 'file:///etc/passwd' })).toContain('"file:" scheme are not allowed');
    expect(await callError(s, 'browser_navigate', { url: 'http://' })).toContain('is not a valid URL');
    const closed = await closedPort();
    expect(await callError(s, 'browser_navigate', { url: `http://127.0.0.1:${closed}/` })).toContain(
      `Navigation to http://127.0.0.1:${closed}/ failed: net::ERR_CONNECTION_REFUSED`,
    );
    expect(await callError(s, 'browser_navigate', {})).toContain('"url" is required');
    expect(await callError(s, 'browser_navigate', { url: 42 })).toContain('"url"');
  });

  it('adds a scheme to bare loopback hosts and applies the host URL filter', async () => {
    const s = await h.session({ checkUrl: (url) => (url.includes('/dialogs') ? 'Blocked by --blocked-origins' : undefined) });
    const text = await call(s, 'browser_navigate', { url: h.server.url('/index.html').replace('http://', '') });
    expect(text).toContain('- Page Title: Fixture home');
    expect(await callError(s, 'browser_navigate', { url: h.server.url('/dialogs.html') })).toContain('Blocked by --blocked-origins');
  });
});

describe('tabs', () => {
  it('lists, opens, selects and closes tabs; a target=_blank tab joins the session', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_click', { target: refOf(snap, 'link "Open item in new tab"') });
    await expect.poll(() => s.tabs.length).toBe(2);
    const list = await call(s, 'browser_tabs', { action: 'list' });
    expect(list).toContain('- 0: [Fixture home]');
    expect(list).toMatch(/- 1: \(current\) \[(Item 7)?\]/);
    const opened = await call(s, 'browser_tabs', { action: 'new', url: h.server.url('/form.html') });
    expect(opened).toContain('- 2: (current) [Form]');
    const selected = await call(s, 'browser_tabs', { action: 'select', index: 0 });
    expect(selected).toContain('- 0: (current) [Fixture home]');
    const closed = await call(s, 'browser_tabs', { action: 'close', index: 1 });
    expect(closed).not.toContain('Item 7');
    expect(s.tabs).toHaveLength(2);
    expect(await callError(s, 'browser_tabs', { action: 'select', index: 9 })).toContain('No tab at index 9. Open tabs are numbered 0 to 1');
    expect(await callError(s, 'browser_tabs', { action: 'select' })).toContain('needs index');
    expect(await callError(s, 'browser_tabs', { action: 'shuffle' })).toContain('"action"');
    expect(await call(s, 'browser_close')).toContain('Closed 2 tabs');
    expect(s.tabs).toHaveLength(0);
    expect(await call(s, 'browser_tabs', { action: 'list' })).toContain('No open tabs');
  });

  it('tells the model once, in its next answer, that a tab was closed outside the session, and where it is now', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_tabs', { action: 'new', url: h.server.url('/form.html') });
    // The person closes the current tab (here: the page is closed from outside the tools).
    await s.tabs[1]!.page.close();
    const next = await call(s, 'browser_snapshot');
    expect(next).toContain(
      `### Note\nTab 1 (${h.server.url('/form.html')}) was closed outside this session: the person closed it, or the page closed itself; now on tab 0 (${h.server.url('/index.html')}).`,
    );
    expect(next).toContain('- Page Title: Fixture home');
    expect(await call(s, 'browser_snapshot')).not.toContain('### Note');
    // A tab the session closes itself is no news.
    await call(s, 'browser_tabs', { action: 'new', url: h.server.url('/form.html') });
    expect(await call(s, 'browser_tabs', { action: 'close', index: 1 })).not.toContain('### Note');
    // The last tab closed from outside: the next call opens a new one, and says so.
    await s.tabs[0]!.page.close();
    expect(await call(s, 'browser_navigate', { url: h.server.url('/form.html') })).toContain(
      'was closed outside this session: the person closed it, or the page closed itself; now on tab 0',
    );
  });

  it('refuses refs from a tab that closed under the session instead of using them on the tab it is now on', async () => {
    const s = await h.session();
    const home = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const form = await call(s, 'browser_tabs', { action: 'new', url: h.server.url('/form.html') });
    // A ref of the form tab that the home tab also has (refs are numbered per tab).
    const ref = refOf(form, 'textbox');
    expect(home).toContain(`[ref=${ref}]`);
    await s.tabs[1]!.page.close();
    const refused = await callError(s, 'browser_click', { target: ref });
    expect(refused).toContain(
      `Ref ${ref} came from tab 1 (${h.server.url('/form.html')}), which was closed; the session is now on tab 0 (${h.server.url('/index.html')}). Nothing was done`,
    );
    expect(s.tabs[0]!.page.url()).toBe(h.server.url('/index.html'));
    // fill_form's fields carry refs too.
    expect(await callError(s, 'browser_fill_form', { fields: [{ target: ref, name: 'Name', type: 'textbox', value: 'x' }] })).toContain(
      `Ref ${ref} came from tab 1`,
    );
    // After an answer about tab 0, its refs work again.
    const again = await call(s, 'browser_snapshot');
    expect(again).toContain('- Page Title: Fixture home');
    expect(await call(s, 'browser_click', { target: refOf(again, 'link "Open item in new tab"') })).not.toContain('came from tab');
  });

  it('keeps a background session in the background: its hidden tab is read, and a screenshot of it is refused with the reason', async () => {
    const s = await h.session({}, { background: true });
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_tabs', { action: 'new', url: h.server.url('/form.html') });
    await call(s, 'browser_tabs', { action: 'select', index: 0 });
    // Not brought to the front: the tab the session works in stays hidden behind the newer one.
    expect(await call(s, 'browser_evaluate', { function: '() => document.visibilityState' })).toContain('"hidden"');
    expect(await call(s, 'browser_snapshot')).toContain('- Page Title: Fixture home');
    expect(await callError(s, 'browser_take_screenshot')).toContain(
      "This tab is behind another tab in its window, and Chrome paints only the tab in front, so it cannot be photographed without taking the person's focus.",
    );
    await call(s, 'browser_close');
  });

  it('brings a hidden tab of a launched browser to the front for its screenshot', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_tabs', { action: 'new', url: h.server.url('/form.html') });
    await s.tabs[1]!.page.bringToFront();
    await call(s, 'browser_tabs', { action: 'select', index: 0 });
    await s.tabs[1]!.page.bringToFront();
    expect(await call(s, 'browser_evaluate', { function: '() => document.visibilityState' })).toContain('"hidden"');
    const shot = await callTool(s, 'browser_take_screenshot', {});
    expect(shot.isError).toBeFalsy();
    expect(shot.content.some((c) => c.type === 'image')).toBe(true);
    await call(s, 'browser_close');
  });

  it('hands a step to the person: a banner with Done / Decline, kept across navigations; at once "nobody" when headless', async () => {
    const headless = await h.session();
    await call(headless, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await callError(headless, 'browser_request_user', { message: 'Log in please' })).toContain('No person can see this browser (it runs headless)');

    const waits: Array<[string, number]> = [];
    const s = await h.session({}, { person: { waiting: (message, ms) => waits.push([message, ms]) } });
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const page = s.peekCurrentTab()!.page;
    const asked = call(s, 'browser_request_user', { message: 'Please log in', target: '#counter' });
    await page.waitForSelector('pierce/#done');
    expect(waits).toEqual([['Waiting for the person: "Please log in"', 15 * 60_000]]);
    expect(await page.evaluate(() => document.getElementById('browsermcp-ask')!.shadowRoot!.getElementById('who')!.textContent)).toBe('An agent asks you:');
    // The page's own script cannot answer for the person: only a real click counts.
    await page.evaluate(() => (document.getElementById('browsermcp-ask')!.shadowRoot!.getElementById('done') as HTMLButtonElement).click());
    // The person's login navigates the page: the banner comes back on the new page.
    await page.goto(h.server.url('/form.html'));
    await page.waitForSelector('pierce/#done');
    await page.click('pierce/#done');
    const done = await asked;
    expect(done).toContain('The person pressed Done (at #counter)');
    expect(done).toContain('- Page Title: Form');
    expect(await page.$('#browsermcp-ask')).toBeNull();

    const declined = call(s, 'browser_request_user', { message: 'Pay 30 EUR' });
    await page.waitForSelector('pierce/#decline');
    await page.click('pierce/#decline');
    expect(await declined).toContain('The person declined: they will not do "Pay 30 EUR"');
    // The page's own margin is back once the banner went.
    expect(await page.evaluate(() => document.documentElement.style.marginTop)).toBe('');

    // The banner names the agent when the host knows its name, and moves the page down rather than covering it.
    const named = await h.session({}, { person: { waiting: () => undefined, agentName: 'Travel agent' } });
    await call(named, 'browser_navigate', { url: h.server.url('/index.html') });
    const namedPage = named.peekCurrentTab()!.page;
    const asking = call(named, 'browser_request_user', { message: 'Pick a seat' });
    await namedPage.waitForSelector('pierce/#done');
    const shown = await namedPage.evaluate(() => {
      const host = document.getElementById('browsermcp-ask')!;
      return {
        who: host.shadowRoot!.getElementById('who')!.textContent,
        bottom: host.getBoundingClientRect().bottom,
        heading: document.querySelector('h1')!.getBoundingClientRect().top,
      };
    });
    expect(shown.who).toBe('"Travel agent" asks you:');
    expect(shown.heading).toBeGreaterThanOrEqual(shown.bottom);
    await namedPage.click('pierce/#done');
    expect(await asking).toContain('The person pressed Done');
  });

  it('resizes the viewport and refuses sizes that make no sense', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_resize', { width: 500, height: 400 });
    expect(await call(s, 'browser_evaluate', { function: '() => [innerWidth, innerHeight]' })).toMatch(/500,\s*400/);
    expect(await callError(s, 'browser_resize', { width: -5, height: 400 })).toContain('width must be at least 1');
    expect(await callError(s, 'browser_resize', { width: 1.5, height: 400 })).toContain('"width"');
  });
});

describe('tab limit', () => {
  it("closes popups past the session's limit and says so once; a new tab past it is refused", async () => {
    const s = await h.session({ maxTabs: 3 });
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const context = s.tabs[0]!.page.browserContext();
    const first = await call(s, 'browser_evaluate', { function: "() => { for (let i = 0; i < 8; i++) window.open('/item/' + i); }" });
    // The popups arrive as the page opens them: the last ones may be reported by the next answer.
    await expect.poll(async () => (await context.pages()).length, { timeout: 10_000 }).toBe(3);
    const next = await call(s, 'browser_tabs', { action: 'list' });
    const notes = `${first}\n${next}`;
    expect(notes).toMatch(/The page opened (6 popups|\d popups)[^\n]* past this session's limit of 3 tabs; (they were|it was) closed/);
    const counted = [...notes.matchAll(/opened (\d+) popups|opened a popup/g)].map((m) => Number(m[1] ?? 1)).reduce((a, b) => a + b, 0);
    expect(counted).toBe(6);
    expect(s.tabs.filter((t) => !t.isClosed)).toHaveLength(3);
    expect(await callError(s, 'browser_tabs', { action: 'new' })).toContain("This session has 3 tabs, its limit (the gateway's --max-tabs)");
    await call(s, 'browser_tabs', { action: 'close', index: 2 });
    expect(await call(s, 'browser_tabs', { action: 'new' })).toContain('### Open tabs');
  });
});

describe('console and network', () => {
  it('collects console messages and page errors, and reports new ones after actions', async () => {
    const s = await h.session();
    const nav = await call(s, 'browser_navigate', { url: h.server.url('/console.html') });
    expect(nav).toContain('### New console messages');
    expect(nav).toContain('[ERROR] something failed');
    const all = await call(s, 'browser_console_messages', { level: 'debug' });
    expect(all).toContain('[LOG] hello from log');
    expect(all).toContain('[WARN] careful');
    await expect.poll(async () => call(s, 'browser_console_messages', { level: 'error' })).toContain('uncaught boom');
    const errors = await call(s, 'browser_console_messages', { level: 'error' });
    expect(errors).not.toContain('hello from log');
    const clicked = await call(s, 'browser_click', { target: 'button' });
    expect(clicked).toContain('### New console messages\n- [ERROR] clicked error');
    const next = await call(s, 'browser_snapshot');
    expect(next).not.toContain('### New console messages');
    expect(await callError(s, 'browser_console_messages', { level: 'loud' })).toContain('"level"');
  });

  it('carries the newest 20 console messages in an answer and counts the rest, those the tab dropped included', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const spam = await call(s, 'browser_evaluate', { function: "() => { for (let i = 0; i < 1500; i++) console.log('spam ' + i); }" });
    const lines = spam.split('### New console messages\n')[1]!.split('\n\n')[0]!.split('\n');
    // 1,500 logged: the tab keeps the last 1,000; 20 are shown, 980 kept and 500 dropped are counted.
    expect(lines[0]).toBe('- … 1,480 earlier messages not shown (browser_console_messages lists the last 1,000)');
    expect(lines.slice(1)).toEqual(Array.from({ length: 20 }, (_, i) => `- [LOG] spam ${1480 + i}`));
    expect(await call(s, 'browser_snapshot')).not.toContain('### New console messages');
    // The list keeps its newest 200 in an answer; the rest are counted, and a file takes them all.
    const listed = await call(s, 'browser_console_messages', { level: 'debug' });
    expect(listed).toContain('Total messages: 1000');
    expect(listed).toContain('… 800 earlier messages not shown; pass "filename" to save them all\n[LOG] spam 1300');
    expect(listed).not.toContain('[LOG] spam 1299\n');
    expect(listed).toContain('[LOG] spam 1499');
  });

  it('bounds what a page decides the size of: each console message, the console kept, and every answer, saying how to get the whole', async () => {
    const saved = new Map<string, number>();
    const s = await h.session(
      {},
      {
        files: {
          resolveUpload: async (p) => ({ path: p }),
          writeOutput: async (name, data) => {
            saved.set(name, data.length);
            return `/out/${name}`;
          },
        },
      },
    );
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    // 300 lines of 64 KB (19 MB logged): each kept cut to 4 KB, and the ring to a million characters.
    const spam = await call(s, 'browser_evaluate', {
      function: "() => { const big = 'x'.repeat(64 * 1024); for (let i = 0; i < 300; i++) console.log(i + ':' + big); }",
    });
    expect(spam.length).toBeLessThan(120_000);
    expect(spam).toContain('… (cut at 4,096 of 65,540 characters; the page logged a longer message)');
    const listed = await call(s, 'browser_console_messages', { level: 'debug' });
    expect(listed.length).toBeLessThan(MAX_ANSWER_CHARS + 200);
    expect(listed).toMatch(/Total messages: 2\d\d\b/); // a million characters hold some 240 cut messages, not 300
    expect(listed).toContain('; pass "filename" to save all of the console messages)');
    // A 3-million-character value: the answer has the first 100,000 and says so; a file gets all of it.
    const value = "() => 'y'.repeat(3_000_000)";
    const answer = await call(s, 'browser_evaluate', { function: value });
    expect(answer).toContain(`… (cut at 100,000 of 3,000,002 characters; pass "filename" to save all of the result)`);
    expect(answer.length).toBeLessThan(MAX_ANSWER_CHARS + 2_000);
    expect(await call(s, 'browser_evaluate', { function: value, filename: 'value.json' })).toContain('Saved the result to /out/value.json');
    expect(saved.get('value.json')).toBe(3_000_002);
  });

  it('closes a tab whose page keeps allocating past its memory bound after its call returned, and tells its agent why', async () => {
    const s = await h.session({ maxTabMemoryMb: 64 });
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const kept = await call(s, 'browser_evaluate', {
      function: "() => { globalThis.hoard = []; setInterval(() => hoard.push(new Uint8Array(8 * 1024 * 1024).fill(1)), 100); return 'started'; }",
    });
    expect(kept).toContain('"started"');
    const tab = s.peekCurrentTab()!;
    for (let i = 0; i < 100 && !tab.page.isClosed(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(tab.page.isClosed()).toBe(true);
    const next = await call(s, 'browser_tabs', { action: 'list' });
    expect(next).toMatch(/The tab with http:\/\/[^ ]+\/index\.html was closed: its page held \d+ MB of memory, past this session's limit of 64 MB/);
  });

  it('lists at most 200 requests in an answer, the rest counted', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_evaluate', { function: "() => Promise.all(Array.from({ length: 230 }, (_, i) => fetch('/item/' + i)))" });
    const list = await call(s, 'browser_network_requests');
    expect(list).toContain('… 30 earlier requests not shown; pass "filename" to save them all');
    expect(list.match(/\[GET\] http/g)).toHaveLength(200);
    expect(list).toMatch(/\n\d+\. \[GET\] http:\/\/[^ ]+\/item\/229 => /);
  });

  it('lists network requests with status, filtered by text or regex', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/spa.html') });
    await call(s, 'browser_click', { target: refOf(snap, 'button "Load data"') });
    const all = await call(s, 'browser_network_requests', { static: true });
    expect(all).toContain(`[GET] ${h.server.url('/spa.html')} => [200] (document)`);
    expect(all).toContain('/api/slow?ms=300 => [200] (fetch)');
    const filtered = resultOf(await call(s, 'browser_network_requests', { filter: 'api/' }));
    expect(filtered).toContain('/api/slow');
    expect(filtered).not.toContain('spa.html');
    expect(await call(s, 'browser_network_requests', { filter: '/slow\\?ms=\\d+/' })).toContain('/api/slow');
    expect(await callError(s, 'browser_network_requests', { filter: '/(/' })).toContain('not a valid regular expression');
  });
});

describe('browser_evaluate', () => {
  it('returns JSON results, awaits promises and passes a target element', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await call(s, 'browser_evaluate', { function: '() => document.title' })).toContain('"Fixture home"');
    expect(await call(s, 'browser_evaluate', { function: 'async () => { await new Promise(r => setTimeout(r, 10)); return {a: [1, 2]}; }' })).toMatch(
      /"a": \[\s*1,\s*2\s*\]/,
    );
    expect(await call(s, 'browser_evaluate', { function: '() => undefined' })).toContain('### Result\nundefined');
    const onEl = await call(s, 'browser_evaluate', { function: '(el) => el.textContent', target: refOf(snap, 'button "Click me"') });
    expect(onEl).toContain('"Click me"');
  });

  it('reports errors thrown in the page and code that is not a function', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await callError(s, 'browser_evaluate', { function: "() => { throw new Error('nope') }" })).toContain('The function threw in the page: nope');
    expect(await callError(s, 'browser_evaluate', { function: 'document.title' })).toContain('must be a JavaScript function');
    expect(await callError(s, 'browser_evaluate', { function: '() => 1', target: '#none' })).toContain('No element matches');
  });
});

describe('browser_wait_for', () => {
  it('waits for text to appear and to go', async () => {
    const s = await h.session();
    const opened = await call(s, 'browser_navigate', { url: h.server.url('/delayed.html') });
    const appeared = await call(s, 'browser_wait_for', { text: 'Ready now' });
    expect(appeared).toContain('Waited for "Ready now" to appear');
    // Shown once: in the wait's answer, as what changed, or already in the navigation's (a slow machine).
    expect(`${opened}\n${appeared}`).toContain('paragraph: Ready now');
    expect(await call(s, 'browser_wait_for', { textGone: 'Loading' })).toContain('to disappear');
    expect(await call(s, 'browser_wait_for', { time: 0.05 })).toContain('Waited for 0.05 s');
  });

  it('refuses a call with nothing to wait for or a wait too long', async () => {
    const s = await h.session();
    expect(await callError(s, 'browser_wait_for', {})).toContain('Pass at least one of time, text or textGone');
    expect(await callError(s, 'browser_wait_for', { time: 600 })).toContain('"time"');
    expect(await callError(s, 'browser_wait_for', { time: -1 })).toContain('"time"');
  });
});

describe('browser_take_screenshot', () => {
  it('returns PNG and JPEG images of the viewport, the full page and an element', async () => {
    const saved: Array<[string, number]> = [];
    const s = await h.session(
      {},
      {
        files: {
          resolveUpload: async (p) => ({ path: p }),
          writeOutput: async (name, data) => {
            saved.push([name, data.length]);
            return `/out/${name}`;
          },
        },
      },
    );
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const png = await callTool(s, 'browser_take_screenshot', {});
    const image = png.content.find((c) => c.type === 'image');
    expect(image?.type === 'image' && image.mimeType).toBe('image/png');
    expect(image?.type === 'image' && Buffer.from(image.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const jpeg = await callTool(s, 'browser_take_screenshot', { type: 'jpeg', fullPage: true, filename: 'full.jpg' });
    expect(jpeg.content[0]!.type === 'text' && jpeg.content[0]!.text).toContain('Saved the screenshot to /out/full.jpg');
    expect(jpeg.content.find((c) => c.type === 'image')).toMatchObject({ mimeType: 'image/jpeg' });
    expect(saved[0]![0]).toBe('full.jpg');
    const el = await callTool(s, 'browser_take_screenshot', { target: '#counter' });
    expect(el.isError).toBeUndefined();
  });

  it('refuses contradictory options and saving without file access', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await callError(s, 'browser_take_screenshot', { target: '#counter', fullPage: true })).toContain('either target or fullPage');
    expect(await callError(s, 'browser_take_screenshot', { filename: 'x.png' })).toContain('Saving files is not available here');
    expect(await callError(s, 'browser_take_screenshot', { type: 'gif' })).toContain('"type"');
  });
});

describe('capabilities', () => {
  it('context tools say clearly that this host has no named contexts', async () => {
    const s = await h.session();
    expect(await callError(s, 'browser_context_list')).toContain('Named browser contexts need a browser that browsermcp launched');
    expect(await callError(s, 'browser_context_create', { name: 'bad name!' })).toContain('name must be 1-32 letters');
  });

  it('context tools delegate to the host context manager', async () => {
    const calls: string[] = [];
    const s = await h.session(
      {},
      {
        contexts: {
          create: async (o) => void calls.push(`create ${o.name} ${o.proxy?.server ?? ''}`),
          switch: async (n) => void calls.push(`switch ${n}`),
          close: async (n) => void calls.push(`close ${n}`),
          list: async () => [{ name: 'default', pages: 1, url: 'about:blank', proxy: undefined, active: true }],
        },
      },
    );
    await call(s, 'browser_context_create', { name: 'uk', proxy: { server: 'http://127.0.0.1:9' } });
    await call(s, 'browser_context_switch', { name: 'uk' });
    await call(s, 'browser_context_close', { name: 'uk' });
    expect(await call(s, 'browser_context_list')).toContain('- default (active): 1 page, about:blank');
    expect(calls).toEqual(['create uk http://127.0.0.1:9', 'switch uk', 'close uk']);
  });

  it('vision tools click, move, drag and scroll by coordinates', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/table?rows=200') });
    const box = await call(s, 'browser_evaluate', {
      function: "() => { const r = document.querySelector('button').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }",
    });
    const [x, y] = JSON.parse(box.split('### Result\n')[1]!.split('\n\n')[0]!) as [number, number];
    await call(s, 'browser_evaluate', {
      function: "() => { window.hits = 0; document.querySelector('button').addEventListener('click', () => window.hits++); }",
    });
    await call(s, 'browser_mouse_click_xy', { x, y });
    expect(await call(s, 'browser_evaluate', { function: '() => window.hits' })).toContain('### Result\n1');
    await call(s, 'browser_mouse_move_xy', { x: 10, y: 10 });
    await call(s, 'browser_mouse_drag_xy', { startX: 10, startY: 10, endX: 40, endY: 40 });
    await call(s, 'browser_mouse_wheel', { deltaY: 400 });
    await expect.poll(async () => call(s, 'browser_evaluate', { function: '() => scrollY' })).toContain('### Result\n400');
    expect(await callError(s, 'browser_mouse_click_xy', { x: -1, y: 0 })).toContain('x must not be negative');
  });

  it('records the actions as an animated GIF', async () => {
    let saved: Uint8Array = new Uint8Array();
    const s = await h.session(
      {},
      {
        files: {
          resolveUpload: async (p) => ({ path: p }),
          writeOutput: async (name, data) => {
            saved = data;
            return `/out/${name}`;
          },
        },
      },
    );
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await callError(s, 'browser_gif_stop')).toContain('No GIF is being recorded');
    await call(s, 'browser_gif_start');
    expect(await callError(s, 'browser_gif_start')).toContain('already being recorded');
    await call(s, 'browser_click', { target: '#counter' });
    await call(s, 'browser_click', { target: '#counter' });
    const result = await callTool(s, 'browser_gif_stop', { filename: 'clicks.gif' });
    expect(result.isError).toBeUndefined();
    const text = result.content[0]!.type === 'text' ? result.content[0]!.text : '';
    expect(text).toContain('Saved the GIF to /out/clicks.gif');
    expect(text).toContain('Recorded 3 frames.');
    const image = result.content.find((c) => c.type === 'image');
    expect(image?.type === 'image' && image.mimeType).toBe('image/gif');
    const bytes = Buffer.from(image?.type === 'image' ? image.data : '', 'base64');
    expect(bytes.subarray(0, 6).toString()).toBe('GIF89a');
    expect(Buffer.from(saved).equals(bytes)).toBe(true);
    // One graphic control extension (21 F9 04 …) right before each image descriptor (2C): one per frame.
    let frames = 0;
    for (let i = 0; i + 8 < bytes.length; i++) {
      if (bytes[i] === 0x21 && bytes[i + 1] === 0xf9 && bytes[i + 2] === 0x04 && bytes[i + 7] === 0x00 && bytes[i + 8] === 0x2c) frames++;
    }
    expect(frames).toBe(3);
  });

  it('saves the page as PDF through the host', async () => {
    let bytes: Uint8Array = new Uint8Array();
    const s = await h.session(
      {},
      {
        files: {
          resolveUpload: async (p) => ({ path: p }),
          writeOutput: async (name, data) => {
            bytes = data;
            return `/out/${name}`;
          },
        },
      },
    );
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await call(s, 'browser_pdf_save', { filename: 'page.pdf' })).toContain('Saved the page as PDF to /out/page.pdf');
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
  });
});
