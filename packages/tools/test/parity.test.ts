import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callTool, WireFileAccess, type FileAccess } from '../src/index.js';
import { call, callError, refOf, useHarness } from './harness.js';

// The tools and parameters @playwright/mcp users rely on, each observed in the page.

const h = useHarness();

/** File access over a temp directory: uploads from it, outputs written in memory. */
async function filesHost(): Promise<{ files: FileAccess; root: string; saved: Map<string, string> }> {
  const root = await mkdtemp(join(tmpdir(), 'bmcp-parity-'));
  await writeFile(join(root, 'notes.txt'), 'dropped notes');
  const saved = new Map<string, string>();
  const files: FileAccess = {
    resolveUpload: async (path, options) =>
      options?.contents ? { name: path.split('/').pop()!, mimeType: 'text/plain', data: (await readFile(path)).toString('base64') } : { path },
    writeOutput: async (name, data) => {
      saved.set(name, new TextDecoder().decode(data));
      return `/out/${name}`;
    },
  };
  return { files, root, saved };
}

const evaluated = async (s: Parameters<typeof call>[0], fn: string) =>
  (await call(s, 'browser_evaluate', { function: fn })).split('### Result\n')[1]!.split('\n\n')[0]!;

describe('filename: saved instead of answered', () => {
  it('snapshot, find, evaluate, console and network requests go to files', async () => {
    const { files, saved } = await filesHost();
    const s = await h.session({}, { files });
    await call(s, 'browser_navigate', { url: h.server.url('/console.html') });
    const snap = await call(s, 'browser_snapshot', { filename: 'page.yaml' });
    expect(snap).toContain('Saved the snapshot to /out/page.yaml');
    expect(snap).not.toContain('### Snapshot');
    expect(saved.get('page.yaml')).toContain('button "Log"');
    expect(await call(s, 'browser_find', { text: 'log', filename: 'find.txt' })).toContain('Saved the matches to /out/find.txt');
    expect(saved.get('find.txt')).toContain('button "Log"');
    await call(s, 'browser_evaluate', { function: '() => ({ a: 1 })', filename: 'result.json' });
    expect(JSON.parse(saved.get('result.json')!)).toEqual({ a: 1 });
    await call(s, 'browser_console_messages', { level: 'debug', filename: 'console.log' });
    expect(saved.get('console.log')).toContain('[LOG] hello from log');
    await call(s, 'browser_network_requests', { static: true, filename: 'net.log' });
    expect(saved.get('net.log')).toContain('/console.html');
    const noFiles = await h.session();
    await call(noFiles, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await callError(noFiles, 'browser_snapshot', { filename: 'x.yaml' })).toContain('Saving files is not available here');
  });
});

describe('snapshot boxes', () => {
  it('writes each element’s box in CSS pixels, iframes offset into the page', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/drop.html') });
    const snap = await call(s, 'browser_snapshot', { boxes: true });
    const box = /region "Drop zone" \[ref=e\d+\] \[box=(\d+),(\d+),(\d+),(\d+)\]/.exec(snap);
    expect(box?.slice(3).map(Number)).toEqual([304, 124]);
    await call(s, 'browser_navigate', { url: h.server.url('/frames.html') });
    const framed = await call(s, 'browser_snapshot', { boxes: true });
    const inner = /button "Inner button" \[ref=f1e\d+\] \[box=(\d+),(\d+)/.exec(framed);
    const frame = /iframe "Same origin" \[ref=e\d+\] \[box=(\d+),(\d+)/.exec(framed);
    expect(Number(inner![2])).toBeGreaterThan(Number(frame![2]));
  });
});

describe('console and network like @playwright/mcp', () => {
  it('console: a count header, the current page by default, every page with all', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/console.html') });
    await expect.poll(async () => call(s, 'browser_console_messages', { level: 'error' })).toContain('uncaught boom');
    const errors = await call(s, 'browser_console_messages', { level: 'error' });
    expect(errors).toMatch(/Total messages: \d+ \(Errors: \d+, Warnings: 1\)\nReturning \d+ messages for level "error"/);
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await call(s, 'browser_console_messages', { level: 'debug' })).toContain('Total messages: 0');
    expect(await call(s, 'browser_console_messages', { level: 'debug', all: true })).toContain('[LOG] hello from log');
  });

  it('network: numbered, static resources hidden unless asked, a regex filter, and the details of one request', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await call(s, 'browser_evaluate', {
      function: "() => fetch('/api/data?x=1', { method: 'POST', body: 'ping', headers: { 'X-Probe': 'yes' } }).then((r) => r.json())",
    });
    const list = await call(s, 'browser_network_requests');
    const line = /(\d+)\. \[POST\] (\S+) => \[200\] \(fetch\)/.exec(list);
    expect(line?.[2]).toBe(h.server.url('/api/data?x=1'));
    expect(list).not.toContain('/index.html =>');
    expect(list).toMatch(/Note: \d+ static requests? not shown; pass "static": true/);
    expect(await call(s, 'browser_network_requests', { static: true })).toContain(`[GET] ${h.server.url('/index.html')} => [200] (document)`);
    expect(await call(s, 'browser_network_requests', { filter: 'api/.*x=1' })).toContain('[POST]');
    expect(await call(s, 'browser_network_requests', { filter: 'nothing-like-this' })).toContain('No matching requests.');
    expect(await callError(s, 'browser_network_requests', { filter: '(' })).toContain('not a valid regular expression');

    const index = Number(line![1]);
    const details = await call(s, 'browser_network_request', { index });
    expect(details).toContain('request-headers:');
    expect(details.toLowerCase()).toContain('x-probe: yes');
    expect(details).toContain('request-body:\nping');
    expect(await call(s, 'browser_network_request', { index, part: 'response-body' })).toContain('"items"');
    expect((await call(s, 'browser_network_request', { index, part: 'response-headers' })).toLowerCase()).toContain('content-type: application/json');
    expect(await callError(s, 'browser_network_request', { index: 99_999 })).toContain('Request #99999 not found');
    expect(await callError(s, 'browser_network_request', { index: 0 })).toContain('"index"');
    expect(await callError(s, 'browser_network_request', { index, part: 'cookies' })).toContain('"part"');
  });
});

describe('screenshots like @playwright/mcp', () => {
  it('takes webp, infers jpeg from the file name, and accepts scale', async () => {
    const { files, saved } = await filesHost();
    const s = await h.session({}, { files });
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const webp = await callTool(s, 'browser_take_screenshot', { type: 'webp', scale: 'css' });
    expect(webp.content.find((c) => c.type === 'image')).toMatchObject({ mimeType: 'image/webp' });
    const jpeg = await callTool(s, 'browser_take_screenshot', { filename: 'shot.jpg', scale: 'device' });
    expect(jpeg.content.find((c) => c.type === 'image')).toMatchObject({ mimeType: 'image/jpeg' });
    expect(saved.has('shot.jpg')).toBe(true);
    expect(await callError(s, 'browser_take_screenshot', { scale: 'huge' })).toContain('"scale"');
  });
});

describe('mouse by coordinates', () => {
  it('clicks with a button and a count, presses and releases, and scrolls sideways', async () => {
    const s = await h.session({}, {});
    await call(s, 'browser_navigate', { url: h.server.url('/table?rows=200') });
    await call(s, 'browser_evaluate', {
      function:
        "() => { window.seen = []; for (const t of ['mousedown', 'mouseup', 'dblclick', 'contextmenu']) addEventListener(t, (e) => seen.push(t + ':' + e.button)); document.body.style.width = '5000px'; }",
    });
    await call(s, 'browser_mouse_click_xy', { x: 50, y: 50, clickCount: 2 });
    await call(s, 'browser_mouse_click_xy', { x: 50, y: 50, button: 'right', delay: 20 });
    await call(s, 'browser_mouse_move_xy', { x: 60, y: 60 });
    await call(s, 'browser_mouse_down', { button: 'middle' });
    await call(s, 'browser_mouse_up', { button: 'middle' });
    // (Where contextmenu falls around the right button's down and up depends on the platform.)
    expect(
      JSON.parse(await evaluated(s, "() => seen.join(' ')"))
        .split(' ')
        .sort(),
    ).toEqual(
      ['mousedown:0', 'mouseup:0', 'mousedown:0', 'mouseup:0', 'dblclick:0', 'mousedown:2', 'mouseup:2', 'contextmenu:2', 'mousedown:1', 'mouseup:1'].sort(),
    );
    await call(s, 'browser_mouse_wheel', { deltaX: 300 });
    await expect.poll(async () => evaluated(s, '() => scrollX')).toBe('300');
    expect(await callError(s, 'browser_mouse_click_xy', { x: 1, y: 1, button: 'side' })).toContain('"button"');
  });
});

describe('browser_emulate_media', () => {
  it('emulates dark mode and print, keeps what is not named, and clears with null', async () => {
    const s = await h.session();
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const dark =
      "() => [matchMedia('(prefers-color-scheme: dark)').matches, matchMedia('(prefers-reduced-motion: reduce)').matches, matchMedia('print').matches].join()";
    expect(await call(s, 'browser_emulate_media', { colorScheme: 'dark' })).toContain('Emulating prefers-color-scheme: dark');
    await call(s, 'browser_emulate_media', { reducedMotion: 'reduce', media: 'print' });
    expect(await evaluated(s, dark)).toBe('"true,true,true"');
    await call(s, 'browser_emulate_media', { colorScheme: null, media: null });
    expect(await evaluated(s, dark)).toBe('"false,true,false"');
    expect(await callError(s, 'browser_emulate_media', { colorScheme: 'blue' })).toContain('"colorScheme"');
  });
});

describe('browser_drop', () => {
  it('drops text and a file from the roots, and contents sent with the command', async () => {
    const { files, root } = await filesHost();
    const s = await h.session({}, { files });
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/drop.html') });
    const zone = refOf(snap, 'region "Drop zone"');
    await call(s, 'browser_drop', { target: zone, paths: [join(root, 'notes.txt')], data: { 'text/plain': 'hello' } });
    await expect.poll(async () => call(s, 'browser_get_text', { target: '#out' })).toContain('{"text":"hello","files":["notes.txt:dropped notes"]}');

    const wire = new WireFileAccess('/srv/out');
    const away = await h.session({}, { files: wire });
    await call(away, 'browser_navigate', { url: h.server.url('/drop.html') });
    wire.receive([{ path: '/home/ada/cv.txt', name: 'cv.txt', mimeType: 'text/plain', data: Buffer.from('cv').toString('base64') }]);
    await call(away, 'browser_drop', { target: '#zone', paths: ['/home/ada/cv.txt'] });
    await expect.poll(async () => call(away, 'browser_get_text', { target: '#out' })).toContain('"files":["cv.txt:cv"]');
    expect(await callError(away, 'browser_drop', { target: '#zone' })).toContain('Give paths, data or both');
  });
});

describe('saved files through a browser away from the disk', () => {
  it("names a file saved under the model's name where the daemon said it lands (the client's workspace), a generated one in the output directory", async () => {
    const wire = new WireFileAccess('/srv/out');
    const away = await h.session({}, { files: wire });
    await call(away, 'browser_navigate', { url: h.server.url('/index.html') });
    wire.receive(undefined, '');
    expect(await call(away, 'browser_take_screenshot', { filename: 'shots/home.png' })).toContain('Saved the screenshot to shots/home.png');
    expect(wire.takeOutputs().map((o) => [o.name, o.generated])).toEqual([['shots/home.png', undefined]]);
    wire.receive(undefined, '/home/ada/project');
    expect(await call(away, 'browser_take_screenshot', { filename: 'home.png' })).toContain('Saved the screenshot to /home/ada/project/home.png');
    wire.receive(undefined, '/home/ada/project');
    const pdf = await call(away, 'browser_pdf_save', {});
    expect(pdf).toMatch(/Saved the page as PDF to \/srv\/out\/page-[\dTZ-]+\.pdf/);
    expect(wire.takeOutputs().map((o) => o.generated)).toEqual([true]);
  });
});

describe('devtools: highlight', () => {
  it('draws a box over an element until it is hidden', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const count = "() => document.querySelectorAll('[data-browsermcp-highlight]').length";
    await call(s, 'browser_highlight', { target: refOf(snap, 'button "Click me"'), style: 'outline: 2px dashed red' });
    await call(s, 'browser_highlight', { target: 'h1' });
    expect(await evaluated(s, count)).toBe('2');
    expect(await call(s, 'browser_hide_highlight', { target: 'h1' })).toContain('Removed the highlight of h1');
    expect(await call(s, 'browser_hide_highlight', {})).toContain('Removed 1 highlight');
    expect(await evaluated(s, count)).toBe('0');
  });
});

describe('testing: locators and checks', () => {
  it('generates Playwright locators', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await call(s, 'browser_generate_locator', { target: refOf(snap, 'button "Click me"') })).toContain("getByRole('button', { name: 'Click me' })");
    expect(await call(s, 'browser_generate_locator', { target: 'p' })).toContain("getByText('Welcome to the fixture site.')");
    await call(s, 'browser_navigate', { url: h.server.url('/drop.html') });
    expect(await call(s, 'browser_generate_locator', { target: '#zone' })).toContain("getByTestId('drop-zone')");
  });

  it('verify tools pass, and fail as errors that say what was found', async () => {
    const s = await h.session();
    const snap = await call(s, 'browser_navigate', { url: h.server.url('/form.html') });
    expect(await call(s, 'browser_verify_element_visible', { role: 'button', accessibleName: 'Submit' })).toContain('Done');
    expect(await callError(s, 'browser_verify_element_visible', { role: 'button', accessibleName: 'Subm' })).toContain('No button named "Subm" is visible');
    expect(await call(s, 'browser_verify_text_visible', { text: 'Sign up' })).toContain('Done');
    expect(await callError(s, 'browser_verify_text_visible', { text: 'Log in' })).toContain('"Log in" is not visible');
    await call(s, 'browser_type', { target: refOf(snap, 'textbox "Name"'), text: 'Ada' });
    expect(await call(s, 'browser_verify_value', { type: 'textbox', element: 'Name', target: refOf(snap, 'textbox "Name"'), value: 'Ada' })).toContain('Done');
    expect(
      await callError(s, 'browser_verify_value', { type: 'checkbox', element: 'Agree', target: refOf(snap, 'checkbox "I agree"'), value: 'true' }),
    ).toContain('expected "true", but it is "false"');
    await call(s, 'browser_navigate', { url: h.server.url('/drop.html') });
    expect(await call(s, 'browser_verify_list_visible', { element: 'Fruits', target: 'ul', items: ['Apple', 'Cherry'] })).toContain('shows all 2 items');
    expect(await callError(s, 'browser_verify_list_visible', { element: 'Fruits', target: 'ul', items: ['Apple', 'Durian'] })).toContain(
      'does not show "Durian"',
    );
  });
});

describe('codegen: the Playwright code that replays each action', () => {
  const code = (answer: string) => /### Ran Playwright code\n```(\w+)\n([\s\S]*?)\n```/.exec(answer)?.slice(1);

  it('writes TypeScript by default, from the element each action touched, frames and secrets included', async () => {
    const s = await h.session({ secrets: { SITE_PASSWORD: 'pa55' } });
    expect(code(await call(s, 'browser_navigate', { url: h.server.url('/form.html') }))).toEqual(['js', `await page.goto('${h.server.url('/form.html')}');`]);
    expect(code(await call(s, 'browser_type', { target: '#name', text: 'SITE_PASSWORD', submit: true }))?.[1]).toBe(
      "await page.getByRole('textbox', { name: 'Name' }).fill(process.env['SITE_PASSWORD']!);\nawait page.getByRole('textbox', { name: 'Name' }).press('Enter');",
    );
    const filled = await call(s, 'browser_fill_form', {
      fields: [
        { target: 'textarea', name: 'Bio', type: 'textbox', value: 'Hi' },
        { target: 'input[name=agree]', name: 'Agree', type: 'checkbox', value: 'true' },
        { target: '#color', name: 'Color', type: 'combobox', value: 'Blue' },
      ],
    });
    expect(code(filled)?.[1]).toBe(
      "await page.getByRole('textbox', { name: 'Bio' }).fill('Hi');\nawait page.getByRole('checkbox', { name: 'I agree' }).check();\nawait page.getByRole('combobox', { name: 'Color' }).selectOption('Blue');",
    );
    expect(code(await call(s, 'browser_press_key', { key: 'Tab' }))?.[1]).toBe("await page.keyboard.press('Tab');");
    await call(s, 'browser_navigate', { url: h.server.url('/frames.html') });
    const snap = await call(s, 'browser_snapshot');
    expect(code(await call(s, 'browser_click', { target: refOf(snap, 'button "Inner button"'), button: 'right' }))?.[1]).toBe(
      "await page.locator('iframe[title=\"Same origin\"]').contentFrame().getByRole('button', { name: 'Inner button' }).click({ button: 'right' });",
    );
    // The locator tool uses the same builder.
    expect(await call(s, 'browser_generate_locator', { target: refOf(snap, 'button "Inner button"') })).toContain(
      "page.locator('iframe[title=\"Same origin\"]').contentFrame().getByRole('button', { name: 'Inner button' })",
    );
  });

  it('writes the language asked for, and nothing with none; a failed action has no code', async () => {
    const python = await h.session({ codegen: 'python' });
    await call(python, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(await call(python, 'browser_generate_locator', { target: 'button' })).toContain('page.get_by_role("button", name="Click me")');
    expect(code(await call(python, 'browser_click', { target: 'button' }))).toEqual(['python', 'page.get_by_role("button", name="Click me").click()']);
    const none = await h.session({ codegen: 'none' });
    const nav = await call(none, 'browser_navigate', { url: h.server.url('/index.html') });
    expect(nav).not.toContain('### Ran Playwright code');
    expect(await call(none, 'browser_generate_locator', { target: 'button' })).toContain("page.getByRole('button', { name: 'Click me' })");
    expect(await call(none, 'browser_click', { target: 'button' })).not.toContain('### Ran Playwright code');
    const failed = await callError(python, 'browser_click', { target: '#nope' });
    expect(failed).not.toContain('### Ran Playwright code');
  });
});
