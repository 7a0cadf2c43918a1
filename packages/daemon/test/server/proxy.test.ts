import { SignJWT } from 'jose';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildDaemonApp, hs256Verifier, SessionRouter, signToken } from '../../src/index.js';
import { authenticatedExtension, connectPeer, hello, type Peer } from '../helpers/ws-peer.js';

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
let app: FastifyInstance;
let router: SessionRouter;
let base: string;
const peers: Peer[] = [];

beforeEach(async () => {
  router = new SessionRouter({ commandTimeoutMs: 5_000, gracePeriodMs: 60_000 });
  app = await buildDaemonApp({ router, verifier: hs256Verifier(SECRET), helloTimeoutMs: 2_000 });
  base = (await app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws');
});

afterEach(async () => {
  for (const p of peers.splice(0)) p.ws.terminate();
  await app.close();
  await router.close();
});

async function client(): Promise<Peer> {
  const peer = await connectPeer(`${base}/mcp`, { origin: undefined });
  peers.push(peer);
  return peer;
}

let nextId = 1;
async function call(peer: Peer, method: string, params?: unknown, id: string | number = nextId++) {
  peer.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
  return peer.next((message) => message.id === id);
}

/** An extension of `user` that answered authenticate and said hello as `browserId`. */
async function extension(user: string, browserId: string): Promise<Peer> {
  const peer = await authenticatedExtension(app, base, user, browserId, SECRET);
  peers.push(peer);
  return peer;
}

async function handshake(peer: Peer, user: string) {
  return call(peer, 'mcp_handshake', { accessToken: await signToken({ userId: user, secret: SECRET }) });
}

it('accepts a valid token and says who the client is', async () => {
  const c = await client();
  const res = await handshake(c, 'alice');
  expect(res.result).toEqual({ authenticated: true, user_id: 'alice', mcp_client_id: expect.any(String) });
});

it('refuses an expired token', async () => {
  const c = await client();
  const now = Math.floor(Date.now() / 1000);
  const expired = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('alice')
    .setIssuedAt(now - 100)
    .setExpirationTime(now - 10)
    .sign(new TextEncoder().encode(SECRET));
  const res = await call(c, 'mcp_handshake', { accessToken: expired });
  expect(res.error).toEqual({ code: -32015, message: 'the access token has expired; create a new one with `browsermcp-daemon token`' });
  expect((await call(c, 'list_extensions')).error.message).toBe('call mcp_handshake with your access token first');
});

it('refuses a token signed with another secret', async () => {
  const c = await client();
  const forged = await signToken({ userId: 'alice', secret: 'another-secret-that-is-also-32-bytes-long!' });
  const res = await call(c, 'mcp_handshake', { accessToken: forged });
  expect(res.error.code).toBe(-32015);
  expect(res.error.message).toContain("signature does not match this daemon's secret");
});

it('refuses calls before the handshake', async () => {
  const c = await client();
  expect((await call(c, 'browser_snapshot')).error).toEqual({ code: -32015, message: 'call mcp_handshake with your access token first' });
});

it('lists only the browsers of the token’s user, and refuses connecting to another user’s', async () => {
  await extension('alice', 'alice-chrome');
  await extension('bob', 'bob-chrome');
  const c = await client();
  await handshake(c, 'alice');
  expect((await call(c, 'list_extensions')).result).toEqual({ extensions: [{ id: 'alice-chrome', name: "alice's Chrome", connected: true }] });
  const res = await call(c, 'connect', { extension_id: 'bob-chrome' });
  expect(res.error).toEqual({ code: -32020, message: 'no browser "bob-chrome" is connected for you; call list_extensions to see the ones you can use' });
});

it('forwards tool calls to the connected browser with mapped ids and answers under the client’s id', async () => {
  const ext = await extension('alice', 'alice-chrome');
  const c = await client();
  await handshake(c, 'alice');
  const connected = await call(c, 'connect', { extension_id: 'alice-chrome' });
  const { connection_id } = connected.result;
  expect(connected.result).toEqual({
    connection_id: expect.any(String),
    extension_id: 'alice-chrome',
    extension_name: "alice's Chrome",
    session_id: expect.stringMatching(/^proxy-/),
  });
  expect(await c.next()).toMatchObject({ method: 'status', params: { state: 'connected', connection_id, extension_id: 'alice-chrome' } });
  expect(await ext.next()).toMatchObject({ type: 'event', name: 'session_opened' });

  c.send({ jsonrpc: '2.0', id: 42, method: 'browser_navigate', params: { url: 'http://127.0.0.1/' } });
  const command = await ext.next();
  expect(command).toMatchObject({ type: 'command', name: 'browser_navigate', payload: { url: 'http://127.0.0.1/' }, originId: `${connection_id}:42` });
  ext.send({
    wireId: command.wireId,
    sessionId: command.sessionId,
    type: 'response',
    name: command.name,
    data: { content: [{ type: 'text', text: 'navigated' }] },
    tabId: '3',
  });
  expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 42, result: { content: [{ type: 'text', text: 'navigated' }] } });

  c.send({ jsonrpc: '2.0', id: 'same-id', method: 'browser_snapshot' });
  const second = await ext.next();
  expect(second.originId).toBe(`${connection_id}:s:same-id`);
  ext.send({ wireId: second.wireId, sessionId: second.sessionId, type: 'response', name: second.name, error: { code: -32018, message: 'boom' } });
  expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 'same-id', error: { code: -32018, message: 'boom' } });

  // A browser that answers with something that is not a tool result is not passed on as one.
  c.send({ jsonrpc: '2.0', id: 43, method: 'browser_snapshot' });
  const third = await ext.next();
  ext.send({ wireId: third.wireId, sessionId: third.sessionId, type: 'response', name: third.name, data: { ok: true } });
  const refused = await c.next();
  expect(refused).toMatchObject({
    jsonrpc: '2.0',
    id: 43,
    error: {
      message: expect.stringContaining(
        'browser_snapshot could not be run: the browser answered with something that is not a tool result ("result.content" is required)',
      ),
    },
  });
});

it('refuses ids with the reserved prefixes', async () => {
  const c = await client();
  await handshake(c, 'alice');
  for (const id of ['proxy:1', 'ext:9']) {
    expect((await call(c, 'list_extensions', undefined, id)).error).toEqual({
      code: -32600,
      message: 'ids starting with "proxy:" or "ext:" are reserved for the daemon; use another id',
    });
  }
});

it('refuses a second connect while connected, and connects again after disconnect', async () => {
  const ext = await extension('alice', 'alice-chrome');
  const c = await client();
  await handshake(c, 'alice');
  const first = (await call(c, 'connect', { extension_id: 'alice-chrome' })).result;
  const again = await call(c, 'connect', { extension_id: 'alice-chrome' });
  expect(again.error.message).toBe(`already connected to alice-chrome (connection ${first.connection_id}); call disconnect first`);
  expect((await call(c, 'disconnect')).result).toEqual({ disconnected: true });
  expect(await ext.next()).toMatchObject({ name: 'session_opened' });
  expect(await ext.next()).toMatchObject({ name: 'session_closed' });
  // Not connected any more: a disconnect is safe and successful, and ends nothing (also naming its old connection).
  expect((await call(c, 'disconnect')).result).toEqual({ disconnected: true });
  expect((await call(c, 'disconnect', { connection_id: first.connection_id })).result).toEqual({ disconnected: true });
  expect((await call(c, 'connect', { extension_id: 'alice-chrome' })).result.extension_id).toBe('alice-chrome');
});

it('tells a connected client when its browser drops and comes back', async () => {
  const ext = await extension('alice', 'alice-chrome');
  const c = await client();
  await handshake(c, 'alice');
  await call(c, 'connect', { extension_id: 'alice-chrome' });
  expect((await c.next()).params.state).toBe('connected');
  await ext.close();
  expect(await c.next()).toMatchObject({ method: 'status', params: { state: 'reconnecting' } });
  await extension('alice', 'alice-chrome');
  expect(await c.next()).toMatchObject({ method: 'status', params: { state: 'connected' } });
});

it('closes an extension that answers authenticate with a bad token', async () => {
  const peer = await connectPeer(`${base}/extension`);
  peers.push(peer);
  const auth = await peer.next();
  peer.send({ jsonrpc: '2.0', id: auth.id, result: { name: 'x', accessToken: 'not-a-jwt' } });
  expect(await peer.closed).toEqual({ code: 4401, reason: 'the access token is not a valid JWT' });
});

it('refuses an extension that takes over another user’s browser id', async () => {
  await extension('alice', 'shared-id');
  const peer = await connectPeer(`${base}/extension`);
  peers.push(peer);
  const auth = await peer.next();
  peer.send({ jsonrpc: '2.0', id: auth.id, result: { name: 'x', accessToken: await signToken({ userId: 'mallory', secret: SECRET }) } });
  await peer.next();
  peer.send(hello('shared-id'));
  expect(await peer.closed).toEqual({ code: 4403, reason: 'browser shared-id belongs to another user' });
});

it('refuses to disconnect another client’s connection and ids that spoof a connection prefix stay theirs', async () => {
  await extension('alice', 'alice-chrome');
  await extension('bob', 'bob-chrome');
  const alice = await client();
  const bob = await client();
  await handshake(alice, 'alice');
  await handshake(bob, 'bob');
  const aliceConn = (await call(alice, 'connect', { extension_id: 'alice-chrome' })).result.connection_id as string;
  await call(bob, 'connect', { extension_id: 'bob-chrome' });
  const spoofed = await call(bob, 'disconnect', { connection_id: aliceConn });
  expect(spoofed.error ?? spoofed.result).not.toEqual({ disconnected: true });
  // Alice's session is untouched.
  expect((await call(alice, 'disconnect')).result).toEqual({ disconnected: true });
});

it('keeps a resumable session when its connection drops, for a new connection of the same user to take up', async () => {
  const ext = await extension('alice', 'alice-chrome');
  const first = await client();
  await handshake(first, 'alice');
  const connected = (await call(first, 'connect', { extension_id: 'alice-chrome', resumable: true })).result;
  expect(connected).toMatchObject({ extension_id: 'alice-chrome', session_id: expect.stringMatching(/^proxy-/) });
  expect(await ext.next()).toMatchObject({ name: 'session_opened', sessionId: connected.session_id });
  first.ws.terminate();
  await first.closed;

  // Another user cannot take it: it reads as a session that does not exist.
  const mallory = await client();
  await handshake(mallory, 'mallory');
  expect((await call(mallory, 'connect', { extension_id: 'alice-chrome', resume_session: connected.session_id })).error).toMatchObject({
    message: expect.stringContaining('no browser "alice-chrome"'),
  });

  const second = await client();
  await handshake(second, 'alice');
  const resumed = (await call(second, 'connect', { extension_id: 'alice-chrome', resume_session: connected.session_id, resumable: true })).result;
  expect(resumed).toMatchObject({ session_id: connected.session_id, resumed: true });
  // A third connection cannot drive it while the second does.
  const third = await client();
  await handshake(third, 'alice');
  expect((await call(third, 'connect', { extension_id: 'alice-chrome', resume_session: connected.session_id })).error.message).toBe(
    `session ${connected.session_id} is driven by another connection; disconnect that one first`,
  );
  const running = call(second, 'browser_snapshot', {});
  const command = await ext.next((m) => m.type === 'command');
  expect(command.sessionId).toBe(connected.session_id);
  ext.send({ wireId: command.wireId, sessionId: command.sessionId, type: 'response', name: command.name, data: { content: [] } });
  expect((await running).result).toEqual({ content: [] });
  expect(await router.hasSession(connected.session_id)).toBe(true);
});

it('closes a kept session whose grace period passes without a client taking it up, and keeps one taken up in time', async () => {
  await app.close();
  await router.close();
  const gracePeriodMs = 300;
  router = new SessionRouter({ commandTimeoutMs: 5_000, gracePeriodMs });
  app = await buildDaemonApp({ router, verifier: hs256Verifier(SECRET), helloTimeoutMs: 2_000 });
  base = (await app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws');
  const ext = await extension('alice', 'alice-chrome');
  const dropped = async () => {
    const c = await client();
    await handshake(c, 'alice');
    const { session_id: sessionId } = (await call(c, 'connect', { extension_id: 'alice-chrome', resumable: true })).result;
    await ext.next((m) => m.name === 'session_opened' && m.sessionId === sessionId);
    c.ws.terminate();
    await c.closed;
    return sessionId as string;
  };

  const abandoned = await dropped();
  const dropAt = Date.now();
  expect(await ext.next((m) => m.name === 'session_closed')).toMatchObject({ sessionId: abandoned });
  expect(Date.now() - dropAt).toBeGreaterThanOrEqual(gracePeriodMs - 50);
  expect(await router.hasSession(abandoned)).toBe(false);

  const taken = await dropped();
  const again = await client();
  await handshake(again, 'alice');
  expect((await call(again, 'connect', { extension_id: 'alice-chrome', resume_session: taken })).result).toMatchObject({ session_id: taken, resumed: true });
  await new Promise((resolve) => setTimeout(resolve, gracePeriodMs * 2));
  expect(await router.hasSession(taken)).toBe(true);
});

it('closes a dropped connection’s session at once unless it asked to be resumable', async () => {
  const ext = await extension('alice', 'alice-chrome');
  const c = await client();
  await handshake(c, 'alice');
  const { session_id: sessionId } = (await call(c, 'connect', { extension_id: 'alice-chrome' })).result;
  await ext.next((m) => m.name === 'session_opened');
  c.ws.terminate();
  expect(await ext.next((m) => m.name === 'session_closed')).toMatchObject({ sessionId });
  const again = await client();
  await handshake(again, 'alice');
  expect((await call(again, 'connect', { extension_id: 'alice-chrome', resume_session: sessionId })).error.message).toContain(
    `session ${sessionId} is not open`,
  );
});

it("opens a session with its client's settings within the daemon's own, and refuses settings that cannot hold together", async () => {
  await app.close();
  app = await buildDaemonApp({
    router,
    verifier: hs256Verifier(SECRET),
    helloTimeoutMs: 2_000,
    sessionSettings: { blockedOrigins: ['a.example'], caps: ['testing'], snapshotMaxChars: 5000, allowedOrigins: ['https://ok.example'] },
  });
  base = (await app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws');
  const ext = await extension('alice', 'alice-chrome');
  const c = await client();
  await handshake(c, 'alice');
  // A tool group the daemon does not offer, or an allowed list of the client's own: refused, saying why.
  const caps = await call(c, 'connect', { extension_id: 'alice-chrome', settings: { caps: ['devtools'] } });
  expect(caps.error.message).toContain('this daemon does not offer the "devtools" tools (its --caps: testing)');
  const allowed = await call(c, 'connect', { extension_id: 'alice-chrome', settings: { allowedOrigins: ['https://mine.example'] } });
  expect(allowed.error.message).toContain('its own --allowed-origins (https://ok.example)');
  // Within: the lower limit, both blocked lists, the daemon's allowed list, the client's choices.
  const connected = await call(c, 'connect', {
    extension_id: 'alice-chrome',
    settings: { caps: ['testing'], snapshotMaxChars: 3000, blockedOrigins: ['b.example'], allowedOrigins: [], codegen: 'python' },
  });
  expect(connected.error).toBeUndefined();
  const opened = await ext.next((m) => m.name === 'session_opened');
  expect(opened.payload.settings).toEqual({
    caps: ['testing'],
    snapshotMaxChars: 3000,
    blockedOrigins: ['a.example', 'b.example'],
    allowedOrigins: ['https://ok.example'],
    codegen: 'python',
  });
  expect((await router.getSession(connected.result.session_id))?.settings).toEqual(opened.payload.settings);
});
