import { SignJWT } from 'jose';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDaemonApp, hs256Verifier, SessionRouter, signToken } from '../../src/index.js';
import { authenticatedExtension, type Peer } from '../helpers/ws-peer.js';
import { routerSessionId } from '../../src/server/caller.js';

// The HTTP API of a daemon with auth: every endpoint that drives a browser needs a token, and a token reaches only
// its own user's sessions and browsers. The browsers are scripted extensions on real WebSockets.

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
let app: FastifyInstance;
let router: SessionRouter;
let http: string;
let alicesBrowser: Peer;
let bobsBrowser: Peer;

beforeEach(async () => {
  router = new SessionRouter({ commandTimeoutMs: 5_000, gracePeriodMs: 60_000 });
  app = await buildDaemonApp({ router, verifier: hs256Verifier(SECRET), helloTimeoutMs: 2_000 });
  http = await app.listen({ host: '127.0.0.1', port: 0 });
  const ws = http.replace('http', 'ws');
  alicesBrowser = await authenticatedExtension(app, ws, 'alice', 'alice-chrome', SECRET);
  bobsBrowser = await authenticatedExtension(app, ws, 'bob', 'bob-chrome', SECRET);
});

afterEach(async () => {
  alicesBrowser.ws.terminate();
  bobsBrowser.ws.terminate();
  await app.close();
  await router.close();
});

const token = (user: string) => signToken({ userId: user, secret: SECRET });

async function request(method: string, path: string, options: { token?: string; body?: unknown; session?: string } = {}) {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.session !== undefined) headers['x-instance-id'] = options.session;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${http}${path}`, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await res.text();
  return {
    status: res.status,
    body: (text ? JSON.parse(text) : undefined) as { error?: { code: string; message: string; rpcCode: number } } & Record<string, unknown>,
  };
}

/** Alice's session on her own browser, opened over HTTP. */
async function alicesSession(): Promise<string> {
  const opened = await request('POST', '/sessions', { token: await token('alice'), body: { executorId: 'alice-chrome', clientName: 'curl' } });
  expect(opened.status).toBe(201);
  expect(await alicesBrowser.next()).toMatchObject({ type: 'event', name: 'session_opened' });
  return opened.body.sessionId as string;
}

/** The router's id of a session Alice named: each user's session ids are their own. */
const alices = (session: string) => routerSessionId('alice', session, hs256Verifier(SECRET));

/** A snapshot command sent as `user` to `session`. */
async function command(user: string, session: string) {
  return request('POST', '/commands', { token: await token(user), session, body: { name: 'browser_snapshot' } });
}

describe('without a valid token', () => {
  const badTokens: Array<[string, () => Promise<string | undefined>, RegExp]> = [
    ['no token', async () => undefined, /requires an access token: send "Authorization: Bearer <token>"/],
    [
      'a forged token',
      () => signToken({ userId: 'alice', secret: 'another-secret-that-is-also-32-bytes-long!' }),
      /signature does not match this daemon's secret/,
    ],
    [
      'an expired token',
      async () => {
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({})
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject('alice')
          .setIssuedAt(now - 100)
          .setExpirationTime(now - 10)
          .sign(new TextEncoder().encode(SECRET));
      },
      /has expired/,
    ],
    [
      'an unsigned (alg: none) token',
      async () => {
        const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
        return `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'alice', exp: Math.floor(Date.now() / 1000) + 60 })}.`;
      },
      /must be signed with HS256|not a valid JWT/,
    ],
  ];
  const endpoints: Array<[string, string, (session: string) => { body?: unknown; session?: string }]> = [
    ['POST', '/sessions', () => ({ body: { executorId: 'alice-chrome' } })],
    ['POST', '/commands', (session) => ({ session, body: { name: 'browser_evaluate', payload: { function: '() => document.cookie' } } })],
    ['DELETE', '/sessions/:id', () => ({})],
  ];

  for (const [method, path, options] of endpoints) {
    it.each(badTokens)(`${method} ${path} answers 401 to %s and does nothing`, async (_what, make, reason) => {
      const session = await alicesSession();
      const bad = await make();
      const res = await request(method, path.replace(':id', session), { ...options(session), ...(bad !== undefined ? { token: bad } : {}) });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'BMCP_ERR_UNAUTHORIZED', rpcCode: -32015 });
      expect(res.body.error!.message).toMatch(reason);
      expect((await router.stats()).sessions).toBe(1);
      expect(await router.hasSession(alices(session))).toBe(true);
      // Nothing reached the browser: the next message Alice's browser sees is this closing of her session.
      await request('DELETE', `/sessions/${session}`, { token: await token('alice') });
      expect(await alicesBrowser.next()).toMatchObject({ name: 'session_closed', sessionId: alices(session) });
    });
  }

  it('never reads a token from the query string', async () => {
    const res = await request('POST', `/sessions?access_token=${await token('alice')}&token=${await token('alice')}`, { body: {} });
    expect(res.status).toBe(401);
    expect((await router.stats()).sessions).toBe(0);
  });

  it('still answers /health, which drives nothing', async () => {
    expect((await request('GET', '/health')).status).toBe(200);
  });
});

describe('with a valid token', () => {
  it('runs commands in its own session on its own browser', async () => {
    const session = await alicesSession();
    const pending = command('alice', session);
    const sent = await alicesBrowser.next();
    expect(sent).toMatchObject({ type: 'command', name: 'browser_snapshot', sessionId: alices(session) });
    alicesBrowser.send({
      wireId: sent.wireId,
      sessionId: alices(session),
      type: 'response',
      name: sent.name,
      data: { content: [{ type: 'text', text: 'ok' }] },
      tabId: '7',
    });
    expect(await pending).toEqual({ status: 200, body: { result: { content: [{ type: 'text', text: 'ok' }] }, tabId: '7' } });
  });

  it("reaches none of another user's sessions: 404, as for a session that does not exist", async () => {
    const session = await alicesSession();
    const ran = await command('bob', session);
    expect(ran.status).toBe(404);
    expect(ran.body.error).toMatchObject({ code: 'BMCP_ERR_SESSION_NOT_FOUND', message: expect.stringContaining(`session ${session} is not open`) });
    const closed = await request('DELETE', `/sessions/${session}`, { token: await token('bob') });
    expect(closed.status).toBe(404);
    expect(await router.hasSession(alices(session))).toBe(true);
    // Bob's command never reached Alice's browser: the next thing it sees is Alice's own command.
    const own = command('alice', session);
    const sent = await alicesBrowser.next();
    expect(sent).toMatchObject({ type: 'command', name: 'browser_snapshot', sessionId: alices(session) });
    alicesBrowser.send({ wireId: sent.wireId, sessionId: alices(session), type: 'response', name: sent.name, data: { content: [] }, tabId: '1' });
    expect((await own).status).toBe(200);
    expect((await request('DELETE', `/sessions/${session}`, { token: await token('alice') })).status).toBe(204);
  });

  it("opens a session under an id another user's session has as a session of its own, and never reaches hers", async () => {
    const session = await alicesSession();
    const bobs = await request('POST', '/sessions', { token: await token('bob'), body: { sessionId: session, executorId: 'bob-chrome' } });
    expect(bobs.status).toBe(201);
    expect(bobs.body).toMatchObject({ sessionId: session, executorId: 'bob-chrome' });
    expect(await bobsBrowser.next()).toMatchObject({ name: 'session_opened', sessionId: routerSessionId('bob', session, hs256Verifier(SECRET)) });
    // The same id now names his session for him and hers for her.
    const his = command('bob', session);
    const sent = await bobsBrowser.next();
    expect(sent).toMatchObject({ type: 'command', sessionId: routerSessionId('bob', session, hs256Verifier(SECRET)) });
    bobsBrowser.send({
      wireId: sent.wireId,
      sessionId: sent.sessionId,
      type: 'response',
      name: sent.name,
      data: { content: [{ type: 'text', text: 'his' }] },
      tabId: '2',
    });
    expect((await his).body).toEqual({ result: { content: [{ type: 'text', text: 'his' }] }, tabId: '2' });
    expect((await request('DELETE', `/sessions/${session}`, { token: await token('bob') })).status).toBe(204);
    expect(await router.hasSession(alices(session))).toBe(true);
    const again = await request('DELETE', `/sessions/${session}`, { token: await token('bob') });
    expect(again.body.error).toMatchObject({
      code: 'BMCP_ERR_SESSION_NOT_FOUND',
      message: `session ${session} is not open (it was never opened, or it was closed)`,
    });
    expect((await request('DELETE', `/sessions/${session}`, { token: await token('alice') })).status).toBe(204);
  });

  it("opens no session on another user's browser", async () => {
    const res = await request('POST', '/sessions', { token: await token('bob'), body: { executorId: 'alice-chrome' } });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: 'BMCP_ERR_EXTENSION_NOT_FOUND',
      message: expect.stringContaining('no browser "alice-chrome" is connected for you'),
    });
    expect((await router.stats()).sessions).toBe(0);
    const own = await request('POST', '/sessions', { token: await token('bob'), body: { executorId: 'bob-chrome' } });
    expect(own.status).toBe(201);
    expect(await bobsBrowser.next()).toMatchObject({ name: 'session_opened' });
  });
});

it('serves no command endpoint at all when built for extensions only (the gateway’s embedded daemon)', async () => {
  const extensionOnly = await buildDaemonApp({ router, commandEndpoints: false });
  try {
    expect((await extensionOnly.inject({ method: 'POST', url: '/sessions', payload: {} })).statusCode).toBe(404);
    expect(
      (await extensionOnly.inject({ method: 'POST', url: '/commands', headers: { 'x-instance-id': 's' }, payload: { name: 'browser_snapshot' } })).statusCode,
    ).toBe(404);
    expect((await extensionOnly.inject({ method: 'GET', url: '/mcp', headers: { connection: 'upgrade', upgrade: 'websocket' } })).statusCode).toBe(404);
    expect((await extensionOnly.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await router.stats()).sessions).toBe(0);
  } finally {
    await extensionOnly.close();
  }
});

describe('sessions per user', () => {
  it('refuses a user past --max-sessions-per-user (429, saying what to do), and leaves other users alone', async () => {
    await app.close();
    await router.close();
    router = new SessionRouter({ commandTimeoutMs: 5_000, gracePeriodMs: 60_000, maxSessionsPerUser: 2 });
    app = await buildDaemonApp({ router, verifier: hs256Verifier(SECRET), helloTimeoutMs: 2_000 });
    http = await app.listen({ host: '127.0.0.1', port: 0 });
    const ws = http.replace('http', 'ws');
    alicesBrowser = await authenticatedExtension(app, ws, 'alice', 'alice-chrome', SECRET);
    bobsBrowser = await authenticatedExtension(app, ws, 'bob', 'bob-chrome', SECRET);
    const open = async (user: string) => request('POST', '/sessions', { token: await token(user), body: { executorId: `${user}-chrome` } });
    expect((await open('alice')).status).toBe(201);
    const second = await open('alice');
    expect(second.status).toBe(201);
    const third = await open('alice');
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({
      code: 'BMCP_ERR_TOO_MANY_SESSIONS',
      message: 'user alice already has 2 sessions open, the most this daemon allows (--max-sessions-per-user); close one (DELETE /sessions/<id>) and try again',
    });
    expect((await open('bob')).status).toBe(201);
    // Closing one makes room again.
    expect((await request('DELETE', `/sessions/${second.body.sessionId as string}`, { token: await token('alice') })).status).toBe(204);
    expect((await open('alice')).status).toBe(201);
  });
});
