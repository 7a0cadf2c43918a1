import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildDaemonApp, SessionRouter, type NodeFileAccessOptions } from '../../src/index.js';
import { MAX_UPLOAD_BYTES } from '../../src/server/wire-files.js';
import { connectPeer, hello, type Peer } from '../helpers/ws-peer.js';

let app: FastifyInstance;
let router: SessionRouter;
let url: string;
const peers: Peer[] = [];

const SETTINGS = { snapshotMaxChars: 5_000, blockedOrigins: ['https://bank.example'], caps: ['pdf'] };

async function start(
  options: { gracePeriodMs?: number; heartbeatMs?: number; helloTimeoutMs?: number; extensionFiles?: NodeFileAccessOptions } = {},
): Promise<void> {
  router = new SessionRouter({ gracePeriodMs: options.gracePeriodMs ?? 60_000, commandTimeoutMs: 5_000 });
  app = await buildDaemonApp({
    router,
    heartbeatMs: options.heartbeatMs,
    helloTimeoutMs: options.helloTimeoutMs,
    sessionSettings: SETTINGS,
    extensionFiles: options.extensionFiles,
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  url = `${address.replace('http', 'ws')}/extension`;
}

afterEach(async () => {
  for (const p of peers.splice(0)) p.ws.terminate();
  await app?.close();
  await router?.close();
});

/** A browser that said hello and is registered with the router. */
async function browserPeer(browserId: string, tabs: Array<{ tabId: string; sessionId: string }> = []): Promise<Peer> {
  const peer = await connectPeer(url);
  peers.push(peer);
  // The daemon speaks first: without auth, `authenticated` at once, so the browser says hello without guessing.
  expect(await peer.next()).toEqual({ jsonrpc: '2.0', method: 'authenticated' });
  peer.send(hello(browserId, tabs));
  // Registered once the router knows it: poll-free, the health endpoint counts it on the next turn.
  await waitFor(async () => (await router.stats()).executors > 0 && app.browsermcp.extensions.records.get(browserId)?.connection != null);
  return peer;
}

async function waitFor(check: () => Promise<boolean> | boolean): Promise<void> {
  // Registration is a few event-loop turns away from the hello; setImmediate yields to I/O without a fixed sleep.
  for (let i = 0; i < 1000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition not met');
}

/** Answers the next command the peer receives with data, in tab `tabId`. */
async function answerNext(peer: Peer, data: unknown, tabId?: string) {
  const command = await peer.next();
  expect(command.type).toBe('command');
  peer.send({
    wireId: command.wireId,
    sessionId: command.sessionId,
    type: 'response',
    name: command.name,
    data,
    ...(tabId ? { tabId } : command.tabId ? { tabId: command.tabId } : {}),
  });
  return command;
}

it('refuses an http://evil.example Origin', async () => {
  await start();
  await expect(connectPeer(url, { origin: 'http://evil.example' })).rejects.toMatchObject({ statusCode: 403 });
  await expect(connectPeer(url, { origin: 'chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' })).rejects.toMatchObject({ statusCode: 403 });
});

it('tells the browser who an agent is as its gateway authenticated it, or else the daemon user, and refuses a bad identity', async () => {
  await start();
  const peer = await browserPeer('b1');
  await router.openSession('s1', { executorId: 'b1', clientName: 'Claude', agent: 'API key 3f9a12cd' });
  expect(await peer.next()).toMatchObject({ name: 'session_opened', sessionId: 's1', payload: { clientName: 'Claude', agent: 'API key 3f9a12cd' } });
  await router.openSession('s2', { executorId: 'b1', clientName: 'Claude', userId: 'alice' });
  expect(await peer.next()).toMatchObject({ name: 'session_opened', sessionId: 's2', payload: { clientName: 'Claude', agent: 'user alice' } });
  await expect(router.openSession('s3', { executorId: 'b1', agent: 'x'.repeat(201) })).rejects.toThrow('"agent" must be a string of at most 200 characters');
});

it('runs a session’s commands in the browser that said hello, over v2 envelopes', async () => {
  await start();
  const peer = await browserPeer('b1');
  await router.openSession('s1', { executorId: 'b1', clientName: 'Claude' });
  expect(await peer.next()).toMatchObject({ type: 'event', name: 'session_opened', sessionId: 's1', payload: { clientName: 'Claude', settings: SETTINGS } });

  const result = router.dispatch('s1', { name: 'browser_snapshot', payload: {} });
  const command = await answerNext(peer, { content: [{ type: 'text', text: 'ok' }] }, '7');
  expect(command).toMatchObject({ sessionId: 's1', name: 'browser_snapshot', payload: {} });
  expect(command.wireId).toMatch(/^[0-9a-f-]{36}$/);
  await expect(result).resolves.toEqual({ content: [{ type: 'text', text: 'ok' }] });
  expect((await router.getSession('s1'))?.currentTabId).toBe('7');

  const events: unknown[] = [];
  router.onEvent('s1', (event) => events.push(event.name));
  peer.send({ wireId: 'e1', sessionId: 's1', type: 'event', name: 'console', tabId: '7', payload: { text: 'hi' } });
  await waitFor(() => events.length > 0);
  expect(events).toEqual(['console']);

  await router.closeSession('s1');
  expect(await peer.next()).toMatchObject({ type: 'event', name: 'session_closed', sessionId: 's1' });
});

it('keeps a session’s tabs when its browser reconnects within the grace period', async () => {
  await start();
  const first = await browserPeer('b1');
  await router.openSession('s1', { executorId: 'b1', clientName: 'Agent A' });
  await first.next(); // session_opened
  const done = router.dispatch('s1', { name: 'browser_navigate', payload: { url: 'http://127.0.0.1/' } });
  await answerNext(first, 'navigated', '7');
  await done;

  await first.close();
  await waitFor(async () => (await router.stats()).reconnecting === 1);
  await expect(router.dispatch('s1', { name: 'browser_snapshot' })).rejects.toMatchObject({ code: 'BMCP_ERR_BROWSER_DISCONNECTED' });

  const second = await browserPeer('b1', [{ tabId: '7', sessionId: 's1' }]);
  // A browser that restarted may have forgotten its sessions' names and settings: each one is announced again.
  expect(await second.next()).toMatchObject({ type: 'event', name: 'session_opened', sessionId: 's1', payload: { clientName: 'Agent A', settings: SETTINGS } });
  const again = router.dispatch('s1', { name: 'browser_snapshot', tabId: '7' });
  expect(await answerNext(second, 'snapshot')).toMatchObject({ tabId: '7', sessionId: 's1' });
  await expect(again).resolves.toBe('snapshot');
  expect(await router.hasSession('s1')).toBe(true);
});

it('forgets the sessions and tabs of a browser that stays away past the grace period', async () => {
  await start({ gracePeriodMs: 50 });
  const first = await browserPeer('b1');
  await router.openSession('s1', { executorId: 'b1' });
  await first.next();
  const done = router.dispatch('s1', { name: 'browser_navigate', payload: {} });
  await answerNext(first, 'ok', '7');
  await done;
  const closed = new Promise((resolve) => router.onSessionClosed('s1', resolve));
  await first.close();
  expect(await closed).toBe('browser-gone');
  expect(await router.hasSession('s1')).toBe(false);

  // Coming back with the tab, the browser is told to close it: no session owns it any more.
  const second = await browserPeer('b1', [{ tabId: '7', sessionId: 's1' }]);
  expect(await second.next()).toMatchObject({ type: 'event', name: 'session_closed', sessionId: 's1', payload: { tabId: '7' } });
  await expect(router.openSession('s2', { executorId: 'b1' })).resolves.toBeDefined();
});

it('serves several browsers at once, each with its own sessions', async () => {
  await start();
  const one = await browserPeer('b1');
  const two = await browserPeer('b2');
  await router.openSession('s1', { executorId: 'b1' });
  await router.openSession('s2', { executorId: 'b2' });
  await one.next();
  await two.next();
  const r1 = router.dispatch('s1', { name: 'browser_snapshot' });
  const r2 = router.dispatch('s2', { name: 'browser_snapshot' });
  expect((await answerNext(two, 'from b2', '1')).sessionId).toBe('s2');
  expect((await answerNext(one, 'from b1', '1')).sessionId).toBe('s1');
  await expect(r1).resolves.toBe('from b1');
  await expect(r2).resolves.toBe('from b2');
  const health = await app.inject({ method: 'GET', url: '/health' });
  expect(health.json().browsers).toBe(2);
});

it('drops a peer that stops answering pings', async () => {
  await start({ heartbeatMs: 30 });
  const peer = await connectPeer(url, { autoPong: false });
  peers.push(peer);
  peer.send(hello('b1'));
  // The server terminates the socket: an abnormal close (1006) from the peer's side.
  expect((await peer.closed).code).toBe(1006);
});

it('closes the socket of a peer whose hello is malformed, saying why', async () => {
  await start();
  const peer = await connectPeer(url);
  peers.push(peer);
  peer.send({ ...hello('b1'), payload: { browserId: 'b1', browser: 'Chrome', version: '1', tabs: [{ tabId: 7 }] } });
  expect(await peer.closed).toEqual({ code: 4400, reason: '"payload.tabs[0].tabId" must be a string; "payload.tabs[0].sessionId" is required' });
});

it('closes the socket of a peer that never says hello', async () => {
  await start({ helloTimeoutMs: 30 });
  const peer = await connectPeer(url);
  peers.push(peer);
  expect(await peer.closed).toEqual({ code: 4400, reason: 'the extension did not send its hello in time' });
});

it('fails a command at once when the browser answers it with an unreadable response', async () => {
  await start();
  const peer = await browserPeer('b1');
  await router.openSession('s1', { executorId: 'b1' });
  await peer.next();
  const result = router.dispatch('s1', { name: 'browser_snapshot' });
  const command = await peer.next();
  peer.send({ wireId: command.wireId, sessionId: 's1', type: 'response', name: command.name });
  await expect(result).rejects.toMatchObject({ message: 'a response must carry "data" or "error"' });
});

describe('files for a browser away from the disk', () => {
  async function withFiles(): Promise<{ peer: Peer; outputDir: string; root: string }> {
    const outputDir = await mkdtemp(join(tmpdir(), 'bmcp-ext-out-'));
    const root = await mkdtemp(join(tmpdir(), 'bmcp-ext-root-'));
    await writeFile(join(root, 'cv.pdf'), '%PDF-1.4 cv');
    await start({ extensionFiles: { outputDir, fileRoots: [root] } });
    const peer = await browserPeer('b1');
    await router.openSession('s1', { executorId: 'b1' });
    // The session learns where its saved files go: its tools then have file access.
    expect(await peer.next()).toMatchObject({ name: 'session_opened', payload: { settings: { ...SETTINGS, outputDir } } });
    return { peer, outputDir, root };
  }

  it('sends an upload’s contents with the command, read under the file roots', async () => {
    const { peer, root } = await withFiles();
    const path = join(root, 'cv.pdf');
    const result = router.dispatch('s1', { name: 'browser_file_upload', payload: { paths: [path] } });
    const command = await answerNext(peer, { content: [{ type: 'text', text: 'uploaded' }] });
    expect(command.files).toEqual([{ path, name: 'cv.pdf', mimeType: 'application/pdf', data: Buffer.from('%PDF-1.4 cv').toString('base64') }]);
    await expect(result).resolves.toEqual({ content: [{ type: 'text', text: 'uploaded' }] });
  });

  it('answers a path outside the roots itself: nothing reaches the browser', async () => {
    const { peer } = await withFiles();
    const result = await router.dispatch('s1', { name: 'browser_file_upload', payload: { paths: ['/etc/passwd'] } });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('/etc/passwd is outside the allowed file roots') }],
    });
    // The next message the browser sees is the next command, not the refused one.
    const next = router.dispatch('s1', { name: 'browser_snapshot', payload: {} });
    expect(await answerNext(peer, { content: [] })).toMatchObject({ name: 'browser_snapshot' });
    await next;
  });

  it('refuses an upload past the size bound, saying how big it is', async () => {
    const { root } = await withFiles();
    await writeFile(join(root, 'big.bin'), Buffer.alloc(MAX_UPLOAD_BYTES + 1));
    const result = await router.dispatch('s1', { name: 'browser_file_upload', payload: { paths: [join(root, 'big.bin')] } });
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('an upload to this browser takes at most 32.0 MB') }] });
  });

  it('writes the files a response carries to the output directory, and turns a refused name into an error answer', async () => {
    const { peer, outputDir } = await withFiles();
    const ok = router.dispatch('s1', { name: 'browser_take_screenshot', payload: { filename: 'shots/a.png' } });
    const command = await peer.next();
    peer.send({
      wireId: command.wireId,
      sessionId: 's1',
      type: 'response',
      name: command.name,
      data: { content: [{ type: 'text', text: 'saved' }] },
      files: [{ name: 'shots/a.png', data: Buffer.from('png!').toString('base64') }],
    });
    // The answer passes on without the files, which are on disk by then.
    await expect(ok).resolves.toEqual({ content: [{ type: 'text', text: 'saved' }] });
    expect(await readFile(join(outputDir, 'shots/a.png'), 'utf8')).toBe('png!');

    const bad = router.dispatch('s1', { name: 'browser_take_screenshot', payload: { filename: 'x.png' } });
    const second = await peer.next();
    peer.send({
      wireId: second.wireId,
      sessionId: 's1',
      type: 'response',
      name: second.name,
      data: { content: [] },
      files: [{ name: '../../etc/x.png', data: '' }],
    });
    expect(await bad).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('must be a file name inside the output directory') }] });
  });

  it('sends where a name the model gave lands with the command that saves it, and writes the file there: the workspace handed with the call, a generated name in the output directory', async () => {
    const outputDir = await mkdtemp(join(tmpdir(), 'bmcp-ext-out-'));
    const workspace = await mkdtemp(join(tmpdir(), 'bmcp-ext-ws-'));
    await start({ extensionFiles: { outputDir } });
    const peer = await browserPeer('b1');
    await router.openSession('s1', { executorId: 'b1' });
    await peer.next();
    const named = router.dispatch('s1', { name: 'browser_take_screenshot', payload: { filename: 'shots/a.png' }, folders: { roots: [workspace], workspace } });
    const command = await peer.next();
    // Answers show it relative to the workspace, as the launched browser's do: "" stands for the workspace.
    expect(command.namedOutputDir).toBe('');
    peer.send({
      wireId: command.wireId,
      sessionId: 's1',
      type: 'response',
      name: command.name,
      data: { content: [] },
      files: [
        { name: 'shots/a.png', data: Buffer.from('png!').toString('base64') },
        { name: 'page-1.pdf', generated: true, data: Buffer.from('pdf').toString('base64') },
      ],
    });
    await named;
    expect(await readFile(join(workspace, 'shots/a.png'), 'utf8')).toBe('png!');
    expect(await readFile(join(outputDir, 'page-1.pdf'), 'utf8')).toBe('pdf');
    // A command that saves nothing under a given name carries no such field.
    const plain = router.dispatch('s1', { name: 'browser_snapshot', payload: {} });
    expect((await answerNext(peer, { content: [] })).namedOutputDir).toBeUndefined();
    await plain;
  });

  it('without a file policy, sends uploads on untouched and no output directory (the browser’s tools say there is no file access)', async () => {
    await start();
    const peer = await browserPeer('b1');
    await router.openSession('s1', { executorId: 'b1' });
    expect((await peer.next()).payload.settings).toEqual(SETTINGS);
    const result = router.dispatch('s1', { name: 'browser_file_upload', payload: { paths: ['/etc/passwd'] } });
    expect((await answerNext(peer, { content: [] })).files).toBeUndefined();
    await result;
  });
});

describe('shutdown', () => {
  it('tells the router the extension left when the app closes, so its sessions wait for it', async () => {
    const router = new SessionRouter();
    const app = await buildDaemonApp({ router });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const peer = await connectPeer(`ws://127.0.0.1:${port}/extension`);
    peer.send(hello('closing-app'));
    await vi.waitFor(async () => expect((await router.stats()).executors).toBe(1));
    await app.close();
    await peer.closed;
    await vi.waitFor(async () => expect(await router.stats()).toMatchObject({ executors: 0, reconnecting: 1 }));
    await router.close();
  });
});
