import { afterAll, beforeAll, expect, it } from 'vitest';
import { signToken, type RunningDaemon } from '../../src/index';
import { startSecureNats } from '../helpers/secure-nats';
import { authenticatedExtension, connectPeer, helloAs, rpc, type Peer, idOf } from '../helpers/ws-peer';

// Three daemons of one cluster in this process, each with its own NATS connection, store client and endpoints:
// what crosses between them goes through a real nats-server, as between machines.
const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
let nats: Awaited<ReturnType<typeof startSecureNats>>;
const daemons: RunningDaemon[] = [];
const peers: Peer[] = [];

beforeAll(async () => {
  nats = await startSecureNats(['a', 'b', 'c']);
  for (const instanceId of ['a', 'b', 'c']) daemons.push(await nats.daemon(instanceId, SECRET));
});

afterAll(async () => {
  for (const peer of peers.splice(0)) peer.ws.terminate();
  for (const daemon of daemons) await daemon.close();
  await nats.close();
});

const [A, B, C] = [0, 1, 2];
const ws = (i: number) => daemons[i]!.address.replace('http', 'ws');

const call = rpc;

/** A proxy-protocol client of `user` on daemon `i`, past its handshake. */
async function client(i: number, user: string): Promise<Peer> {
  const peer = await connectPeer(`${ws(i)}/mcp`, { origin: undefined });
  peers.push(peer);
  const shake = await call(peer, 'mcp_handshake', { accessToken: await signToken({ userId: user, secret: SECRET }) });
  expect(shake.result).toMatchObject({ authenticated: true, user_id: user });
  return peer;
}

/** A scripted extension of `user` on daemon `i` that answers every command with the browser and command it ran. */
async function extension(i: number, user: string, browserId: string): Promise<Peer> {
  const peer = await authenticatedExtension(daemons[i]!.app, ws(i), user, browserId, SECRET);
  peers.push(peer);
  return peer;
}

function answer(ext: Peer, command: { wireId: string; sessionId: string; name: string }, text: string, tabId = '1'): void {
  ext.send({ wireId: command.wireId, sessionId: command.sessionId, type: 'response', name: command.name, data: { content: [{ type: 'text', text }] }, tabId });
}

/** list_extensions on a client, once it shows `count` browsers (other instances learn of a browser within a beat). */
async function listed(peer: Peer, count: number) {
  for (let i = 0; i < 100; i++) {
    const { result } = await call(peer, 'list_extensions');
    if (result.extensions.length === count) return result.extensions;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`list_extensions never showed ${count} browsers`);
}

it('lists every browser of the user in the cluster with the instance that holds it, and no one else’s', async () => {
  await extension(B, 'alice', idOf('alice-laptop'));
  await extension(C, 'alice', idOf('alice-desktop'));
  await extension(C, 'bob', idOf('bob-laptop'));
  const alice = await client(A, 'alice');
  expect(await listed(alice, 2)).toEqual(
    expect.arrayContaining([
      { id: idOf('alice-desktop'), name: "alice's Chrome", connected: true, instance: 'c' },
      { id: idOf('alice-laptop'), name: "alice's Chrome", connected: true, instance: 'b' },
    ]),
  );
  const bob = await client(B, 'bob');
  expect(await listed(bob, 1)).toEqual([{ id: idOf('bob-laptop'), name: "bob's Chrome", connected: true, instance: 'c' }]);
  // Another user's browser on another instance reads as unknown, as it does on its own instance.
  expect((await call(bob, 'connect', { extension_id: idOf('alice-laptop') })).error).toMatchObject({
    message: expect.stringContaining(`no browser "${idOf('alice-laptop')}"`),
  });
  const health = (await fetch(`${daemons[A]!.address}/health`).then((r) => r.json())) as { cluster?: unknown };
  expect(health.cluster).toEqual({ instanceId: 'a', instances: 3, browsers: 3 });
});

it('runs tool calls in a browser held by another instance, in order, with its events and tab ownership', async () => {
  const ext = await extension(B, 'carol', idOf('carol-laptop'));
  const carol = await client(A, 'carol');
  await listed(carol, 1);
  const connected = await call(carol, 'connect', { extension_id: idOf('carol-laptop') });
  expect(connected.result).toMatchObject({ extension_id: idOf('carol-laptop') });
  expect(await ext.next((m) => m.name === 'session_opened')).toMatchObject({ payload: { clientName: expect.stringContaining('remote') } });

  // Two calls at once: the browser gets the second only after it answered the first (per-session order).
  const first = 'first-call';
  const second = 'second-call';
  carol.send({ jsonrpc: '2.0', id: first, method: 'browser_navigate', params: { url: 'https://example.com' } });
  carol.send({ jsonrpc: '2.0', id: second, method: 'browser_snapshot', params: {} });
  const one = await ext.next((m) => m.type === 'command');
  expect(one).toMatchObject({ name: 'browser_navigate', payload: { url: 'https://example.com' } });
  // An event of the session's tab reaches the client on the other instance.
  ext.send({ wireId: 'ev-1', sessionId: one.sessionId, type: 'event', name: 'console', tabId: '1', payload: { type: 'log', text: 'hello from b' } });
  expect(await carol.next((m) => m.method === 'event/console')).toMatchObject({ params: { tabId: '1', payload: { text: 'hello from b' } } });
  answer(ext, one, 'navigated', '1');
  expect(await carol.next((m) => m.id === first)).toMatchObject({ result: { content: [{ text: 'navigated' }] } });
  const two = await ext.next((m) => m.type === 'command');
  expect(two.name).toBe('browser_snapshot');
  answer(ext, two, 'snapshot', '1');
  expect(await carol.next((m) => m.id === second)).toMatchObject({ result: { content: [{ text: 'snapshot' }] } });

  // The tab the browser answered in is the session's, claimed by the instance that holds the browser, the one that
  // checks a tab a command names (no claim in the bucket for another daemon to rewrite); it is the session's current
  // tab on the instance that serves it.
  const { sessionId } = one;
  const stores = daemons.map((d) => d.cluster!.store);
  expect(await stores[B]!.getTabOwner(idOf('carol-laptop'), '1')).toBe(sessionId);
  expect(await stores[A]!.getTabOwner(idOf('carol-laptop'), '1')).toBeUndefined();
  expect((await stores[A]!.getSession(sessionId))?.currentTabId).toBe('1');
  const named = call(carol, 'browser_snapshot', { tabId: '1' });
  const inTab = await ext.next((m) => m.type === 'command');
  expect(inTab).toMatchObject({ name: 'browser_snapshot', tabId: '1' });
  answer(ext, inTab, 'in tab 1', '1');
  expect((await named).result).toMatchObject({ content: [{ text: 'in tab 1' }] });
  expect((await call(carol, 'browser_snapshot', { tabId: '2' })).error).toMatchObject({ message: expect.stringContaining('2') });

  // The browser's error answer crosses as the browser worded it.
  const failing = call(carol, 'browser_click', { ref: 'e9' });
  const three = await ext.next((m) => m.type === 'command');
  ext.send({ wireId: three.wireId, sessionId: three.sessionId, type: 'response', name: three.name, error: { code: -32018, message: 'Ref e9 not found' } });
  expect((await failing).error).toMatchObject({ code: -32018, message: 'Ref e9 not found' });

  // disconnect on A closes the session's tabs in the browser on B.
  expect((await call(carol, 'disconnect')).result).toEqual({ disconnected: true });
  expect(await ext.next((m) => m.name === 'session_closed')).toMatchObject({ sessionId });
  expect(await stores[C]!.getSession(sessionId)).toBeUndefined();
});

it('cancels a call on the browser’s instance when the client cancels it, and the next call goes on', async () => {
  const ext = await extension(C, 'dave', idOf('dave-laptop'));
  const dave = await client(A, 'dave');
  await listed(dave, 1);
  await call(dave, 'connect', { extension_id: idOf('dave-laptop') });
  const id = 'call-to-cancel';
  dave.send({ jsonrpc: '2.0', id, method: 'browser_wait_for', params: { time: 30 } });
  const waiting = await ext.next((m) => m.type === 'command');
  dave.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
  expect(await dave.next((m) => m.id === id)).toMatchObject({ error: { message: expect.stringContaining('cancelled') } });
  expect(await ext.next((m) => m.name === 'cancel')).toMatchObject({ payload: { wireId: waiting.wireId, reason: 'cancelled' } });
  const next = call(dave, 'browser_snapshot', {});
  answer(ext, await ext.next((m) => m.type === 'command'), 'after the cancel');
  expect((await next).result).toMatchObject({ content: [{ text: 'after the cancel' }] });
});

it('tells the client on another instance when the person stops its agent, and why', async () => {
  const ext = await extension(B, 'erin', idOf('erin-laptop'));
  const erin = await client(C, 'erin');
  await listed(erin, 1);
  await call(erin, 'connect', { extension_id: idOf('erin-laptop') });
  const opened = await ext.next((m) => m.name === 'session_opened');
  ext.send({ wireId: 'stop-1', sessionId: opened.sessionId, type: 'event', name: 'session_stopped', payload: null });
  expect(await erin.next((m) => m.method === 'disconnected')).toMatchObject({
    params: { reason: 'the person stopped this agent in their browser' },
  });
});

it('refuses an extension that says hello with a browser id another user’s extension holds on another instance', async () => {
  await extension(A, 'frank', idOf('frank-laptop'));
  for (let i = 0; i < 100 && !daemons[B]!.cluster!.browsersFor('frank').length; i++) await new Promise((r) => setTimeout(r, 20));
  const impostor = await helloAs(ws(B), 'mallory', idOf('frank-laptop'), SECRET);
  peers.push(impostor);
  expect(await impostor.closed).toMatchObject({ reason: expect.stringContaining('belongs to another user') });
});

it('lets a connection on another instance take up a resumable session whose connection dropped', async () => {
  const ext = await extension(B, 'gwen', idOf('gwen-laptop'));
  const first = await client(A, 'gwen');
  await listed(first, 1);
  const { session_id: sessionId } = (await call(first, 'connect', { extension_id: idOf('gwen-laptop'), resumable: true })).result;
  await ext.next((m) => m.name === 'session_opened');
  first.ws.terminate();
  await first.closed;

  const second = await client(C, 'gwen');
  await listed(second, 1);
  expect((await call(second, 'connect', { extension_id: idOf('gwen-laptop'), resume_session: sessionId, resumable: true })).result).toMatchObject({
    session_id: sessionId,
    resumed: true,
  });
  expect(await daemons[A]!.cluster!.store.getSession(sessionId)).toMatchObject({ servedBy: 'c' });
  const running = call(second, 'browser_snapshot', {});
  const command = await ext.next((m) => m.type === 'command');
  expect(command.sessionId).toBe(sessionId);
  answer(ext, command, 'served from c');
  expect((await running).result).toMatchObject({ content: [{ text: 'served from c' }] });
});

it('times a crossing command out on the instance that sent it, and stops it in the browser on the other', async () => {
  const ext = await extension(B, 'hugo', idOf('hugo-laptop'));
  const router = daemons[A]!.router;
  for (let i = 0; i < 100 && !daemons[A]!.cluster!.browsersFor('hugo').length; i++) await new Promise((r) => setTimeout(r, 20));
  await router.openSession('hugo-session', { executorId: idOf('hugo-laptop'), userId: 'hugo' });
  await ext.next((m) => m.name === 'session_opened');
  const slow = router.dispatch('hugo-session', { name: 'browser_wait_for', payload: { time: 60 }, timeoutMs: 300 });
  const command = await ext.next((m) => m.type === 'command');
  await expect(slow).rejects.toMatchObject({ code: 'BMCP_ERR_TIMEOUT' });
  expect(await ext.next((m) => m.name === 'cancel')).toMatchObject({ payload: { wireId: command.wireId, reason: 'timeout' } });
  // A late answer from the browser is dropped, and the next command goes through.
  answer(ext, command, 'too late');
  const next = router.dispatch('hugo-session', { name: 'browser_snapshot', payload: {} });
  answer(ext, await ext.next((m) => m.type === 'command'), 'in time');
  await expect(next).resolves.toMatchObject({ content: [{ text: 'in time' }] });
});

it('keeps a browser state per user and owner across connections and instances (keep_state)', async () => {
  await extension(B, 'iris', idOf('iris-laptop'));
  await extension(B, 'jack', idOf('jack-laptop'));
  const keep = (owner: string) => ({ owner, ms: 60_000 });
  const first = await client(A, 'iris');
  await listed(first, 1);
  const made = (await call(first, 'connect', { extension_id: idOf('iris-laptop'), keep_state: keep('key-1') })).result;
  expect(made.resumed).toBeUndefined();
  expect((await call(first, 'disconnect')).result).toEqual({ disconnected: true });

  // The same owner on another instance takes the same session up; its browser was not told to close it.
  const second = await client(C, 'iris');
  await listed(second, 1);
  expect((await call(second, 'connect', { extension_id: idOf('iris-laptop'), keep_state: keep('key-1') })).result).toMatchObject({
    session_id: made.session_id,
    resumed: true,
  });
  // Another owner of the same user, and the same owner name of another user, get states of their own.
  const third = await client(A, 'iris');
  expect((await call(third, 'connect', { extension_id: idOf('iris-laptop'), keep_state: keep('key-2') })).result.session_id).not.toBe(made.session_id);
  const jack = await client(A, 'jack');
  await listed(jack, 1);
  expect((await call(jack, 'connect', { extension_id: idOf('jack-laptop'), keep_state: keep('key-1') })).result.resumed).toBeUndefined();
  expect(await daemons[B]!.cluster!.store.getSession(made.session_id)).toMatchObject({ executorId: idOf('iris-laptop'), servedBy: 'c' });

  const both = await client(A, 'iris');
  expect((await call(both, 'connect', { extension_id: idOf('iris-laptop'), keep_state: keep('key-1'), resume_session: made.session_id })).error.message).toBe(
    'resume_session and keep_state are two ways to take up a session: send one of them',
  );
});

it('tells a client when its browser on another instance drops and comes back', async () => {
  const ext = await extension(B, 'kate', idOf('kate-laptop'));
  const kate = await client(A, 'kate');
  await listed(kate, 1);
  await call(kate, 'connect', { extension_id: idOf('kate-laptop') });
  expect(await kate.next((m) => m.method === 'status')).toMatchObject({ params: { state: 'connected' } });
  ext.ws.terminate();
  expect(await kate.next((m) => m.method === 'status')).toMatchObject({ params: { state: 'reconnecting', extension_id: idOf('kate-laptop') } });
  await extension(C, 'kate', idOf('kate-laptop'));
  expect(await kate.next((m) => m.method === 'status')).toMatchObject({ params: { state: 'connected' } });
});
