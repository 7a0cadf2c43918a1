import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { startCdpFront, startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { alive, processTree, startLocal, tempDir, testChromePath } from '../helpers/local.js';

// Each test here starts its own browser: they kill, connect to or shut down one.
let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer();
});

afterAll(async () => {
  await server?.close();
});

/** Chromium with a DevTools port of its own choosing; resolves with the http endpoint it prints. */
async function startCdpChromium(): Promise<{ child: ChildProcess; endpoint: string }> {
  const args = [
    '--headless=new',
    '--remote-debugging-port=0',
    '--remote-debugging-address=127.0.0.1',
    `--user-data-dir=${tempDir('cdp-profile')}`,
    '--no-first-run',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    'about:blank',
  ];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  const child = spawn(testChromePath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /DevTools listening on ws:\/\/([^/\s]+)\//.exec(err);
      if (m) resolve(`http://${m[1]}`);
    });
    child.once('exit', (code) => reject(new Error(`chromium exited (${code}) before listening:\n${err}`)));
  });
  return { child, endpoint };
}

it('runs sessions on a browser reached over CDP and leaves that browser running on close', async () => {
  const { child, endpoint } = await startCdpChromium();
  try {
    const rig = await startLocal({ cdpEndpoint: endpoint });
    await rig.router.openSession('cdp-a');
    await rig.router.openSession('cdp-b');
    const [a, b] = await Promise.all([
      rig.text('cdp-a', 'browser_navigate', { url: server.url('/item/1') }),
      rig.text('cdp-b', 'browser_navigate', { url: server.url('/item/2') }),
    ]);
    expect(a).toContain('Page Title: Item 1');
    expect(b).toContain('Page Title: Item 2');
    expect(rig.executor.browser.pid).toBeUndefined();
    // Each session has its own context in the browser it reached, as in one it launched: cookies do not cross.
    await rig.text('cdp-a', 'browser_evaluate', { function: "() => { document.cookie = 'who=cdp-a; path=/'; }" });
    expect(await rig.text('cdp-b', 'browser_navigate', { url: server.url('/echo-cookie') })).not.toContain('who=cdp-a');
    expect(await rig.text('cdp-a', 'browser_navigate', { url: server.url('/echo-cookie') })).toContain('who=cdp-a');

    await rig.router.closeSession('cdp-a');
    await rig.close();
    expect(child.exitCode).toBeNull();
    expect(alive(child.pid!)).toBe(true);

    // The browser still answers: a second daemon can drive it.
    const again = await startLocal({ cdpEndpoint: endpoint });
    await again.router.openSession('cdp-c');
    expect(await again.text('cdp-c', 'browser_navigate', { url: server.url('/item/3') })).toContain('Page Title: Item 3');
    await again.close();
    expect(alive(child.pid!)).toBe(true);
  } finally {
    child.kill('SIGKILL');
  }
});

it('names a CDP endpoint it cannot reach in the error', async () => {
  const rig = await startLocal({ cdpEndpoint: 'http://127.0.0.1:9' });
  await rig.router.openSession('nocdp');
  await expect(rig.call('nocdp', 'browser_snapshot')).rejects.toThrow(
    /cannot connect to the browser at http:\/\/127\.0\.0\.1:9 .*start Chrome with --remote-debugging-port/,
  );
  await rig.close();
});

it('sends --cdp-header with every request to the endpoint: a gatekept one lets it in, and the refusal is named without it', async () => {
  const { child, endpoint } = await startCdpChromium();
  const front = await startCdpFront(endpoint, { 'X-Browser-Token': 'let-me-in' });
  try {
    const without = await startLocal({ cdpEndpoint: front.url });
    await without.router.openSession('no-header');
    await expect(without.call('no-header', 'browser_snapshot')).rejects.toThrow(/cannot connect to the browser at .*answered HTTP 401/);
    await without.close();

    const rig = await startLocal({ cdpEndpoint: front.url, cdpHeaders: { 'X-Browser-Token': 'let-me-in' } });
    await rig.router.openSession('header');
    expect(await rig.text('header', 'browser_navigate', { url: server.url('/item/1') })).toContain('Page Title: Item 1');
    // Both the version lookup and the WebSocket carried it.
    const carried = front.seen.filter((h) => h['x-browser-token'] === 'let-me-in');
    expect(carried.some((h) => h.upgrade === 'websocket')).toBe(true);
    expect(carried.some((h) => h.upgrade === undefined)).toBe(true);
    await rig.close();
  } finally {
    await front.close();
    child.kill('SIGKILL');
  }
});

it('gives up on a CDP endpoint that never answers after --cdp-timeout, naming the flag', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const rig = await startLocal({ cdpEndpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, cdpTimeoutMs: 500 });
  try {
    await rig.router.openSession('silent');
    await expect(rig.call('silent', 'browser_snapshot')).rejects.toThrow(/no answer within 500 ms \(--cdp-timeout\)/);
  } finally {
    await rig.close();
    for (const s of sockets) s.destroy();
    silent.close();
  }
});

it('answers a command cut off by a browser crash clearly and relaunches on the next one', async () => {
  const rig = await startLocal();
  try {
    await rig.router.openSession('crash');
    const gone = vi.fn();
    rig.router.onEvent('crash', gone);
    await rig.text('crash', 'browser_navigate', { url: server.url('/item/1') });
    const firstPid = rig.executor.browser.pid!;
    expect(firstPid).toBeGreaterThan(0);

    const inFlight = rig.call('crash', 'browser_navigate', { url: server.url('/api/slow?ms=10000') });
    await vi.waitFor(() => expect(server.requests).toContain('/api/slow'));
    process.kill(firstPid, 'SIGKILL');

    const cut = await inFlight;
    expect(cut.isError).toBe(true);
    expect(cut.content[0]!.text).toContain('The browser closed or crashed while browser_navigate ran. Call the tool again');
    await vi.waitFor(() => expect(gone).toHaveBeenCalledWith(expect.objectContaining({ name: 'browser_gone' })));

    const next = await rig.text('crash', 'browser_navigate', { url: server.url('/item/2') });
    expect(next).toContain('Page Title: Item 2');
    // The cut-off call already said so: the next answer does not say it again.
    expect(next).not.toContain('Since your last call');
    expect(rig.executor.browser.pid).not.toBe(firstPid);
    // The session's current tab is the new browser's, so naming it works.
    const tabId = (await rig.router.getSession('crash'))?.currentTabId;
    const named = (await rig.router.dispatch('crash', { name: 'browser_snapshot', payload: {}, tabId: tabId! })) as {
      content: Array<{ text: string }>;
    };
    expect(named.content[0]!.text).toContain('/item/2');
  } finally {
    await rig.close();
  }
});

// The last four each launch a browser of their own and close it, one after the other: side by side on two cores,
// four launches and relaunches at once took most of each one's time.
it('relaunches after a crash between commands', async () => {
  const rig = await startLocal();
  try {
    await rig.router.openSession('idle-crash');
    await rig.text('idle-crash', 'browser_navigate', { url: server.url('/item/1') });
    const browser = await rig.executor.browser.get();
    const disconnected = new Promise((resolve) => browser.once('disconnected', resolve));
    process.kill(rig.executor.browser.pid!, 'SIGKILL');
    await disconnected;
    expect(rig.executor.browser.connected).toBe(false);
    const after = await rig.text('idle-crash', 'browser_navigate', { url: server.url('/item/5') });
    expect(after).toContain('Page Title: Item 5');
    // The session is told its pages went with the browser, once.
    expect(after).toContain("### Note\nSince your last call the browser closed or crashed; a new browser started, and this session's tabs and pages are gone.");
    expect(await rig.text('idle-crash', 'browser_snapshot')).not.toContain('Since your last call');
  } finally {
    await rig.close();
  }
});

it('--idle-timeout: closes the browser nobody used for that long, tells the session, and starts it again on the next call', async () => {
  const rig = await startLocal({ idleTimeoutMs: 400 });
  try {
    await rig.router.openSession('idle');
    await rig.text('idle', 'browser_navigate', { url: server.url('/item/1') });
    const tree = processTree(rig.executor.browser.pid!);
    await expect.poll(() => tree.filter(alive), { timeout: 10_000, interval: 50 }).toEqual([]);
    expect(rig.executor.browser.connected).toBe(false);
    const after = await rig.text('idle', 'browser_snapshot');
    expect(after).toContain('Since your last call the browser was closed after 400 ms without a tool call (--idle-timeout); a new browser started');
    expect(rig.executor.browser.connected).toBe(true);
  } finally {
    await rig.close();
  }
});

it('leaves no Chromium process behind when it shuts down', async () => {
  const rig = await startLocal();
  await rig.router.openSession('shut-a');
  await rig.router.openSession('shut-b');
  await rig.text('shut-a', 'browser_navigate', { url: server.url('/item/1') });
  await rig.text('shut-b', 'browser_navigate', { url: server.url('/item/2') });
  const pid = rig.executor.browser.pid!;
  const tree = processTree(pid);
  // The browser, its zygotes, a GPU/utility process and two renderers at least.
  expect(tree.length).toBeGreaterThan(3);
  // Launched headless: the quiet flags and software compositing (cheaper than the GPU process's emulated GL).
  const flags = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  expect(flags).toEqual(expect.arrayContaining(['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync']));

  await rig.close();
  expect(tree.filter(alive)).toEqual([]);
  expect(rig.executor.browser.pid).toBeUndefined();
});

it('does not launch a browser again once shut down', async () => {
  const rig = await startLocal();
  await rig.router.openSession('late');
  await rig.text('late', 'browser_navigate', { url: server.url('/item/1') });
  await rig.executor.close();
  await expect(rig.call('late', 'browser_snapshot')).rejects.toMatchObject({
    message: 'the browser could not be started: the daemon is shutting down',
  });
  expect(rig.executor.browser.pid).toBeUndefined();
  await rig.router.close();
});
