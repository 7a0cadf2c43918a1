import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildDaemonApp, type SessionRouter } from '../../src/index.js';
import { connectedRouter, type FakeExecutor } from '../helpers/fake-executor.js';

let app: FastifyInstance;
let router: SessionRouter;
let browser: FakeExecutor;

beforeEach(async () => {
  ({ router, browser } = await connectedRouter());
  // A fake executor answers every command with its name, like a browser that ran it in tab t1.
  const send = browser.send.bind(browser);
  browser.send = (command) => {
    send(command);
    queueMicrotask(() =>
      browser.respond(command, { content: [{ type: 'text', text: `ran ${command.name} ${JSON.stringify(command.payload)}` }] }, command.tabId ?? 't1'),
    );
  };
  app = await buildDaemonApp({ router, version: '1.2.3' });
});

afterEach(async () => {
  await app.close();
  await router.close();
});

async function openSession(body: Record<string, unknown> = {}): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/sessions', payload: body });
  expect(res.statusCode).toBe(201);
  return res.json<{ sessionId: string }>().sessionId;
}

it('reports status, version, sessions, browsers and uptime on /health', async () => {
  await openSession();
  const res = await app.inject({ method: 'GET', url: '/health' });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ status: 'ok', version: '1.2.3', sessions: 1, browsers: 0, uptime: expect.any(Number) });
});

it('creates a session with a fresh id, or the one asked for', async () => {
  const fresh = await openSession({ clientName: 'curl' });
  expect(fresh).toMatch(/^[0-9a-f-]{36}$/);
  expect(await router.hasSession(fresh)).toBe(true);
  expect(await openSession({ sessionId: 'mine' })).toBe('mine');
  const again = await app.inject({ method: 'POST', url: '/sessions', payload: { sessionId: 'mine' } });
  expect(again.statusCode).toBe(400);
  expect(again.json().error).toMatchObject({ code: 'BMCP_ERR_SESSION_EXISTS', message: 'session mine is already open' });
});

it('runs a command for the session named by X-Instance-ID', async () => {
  const sessionId = await openSession();
  const res = await app.inject({
    method: 'POST',
    url: '/commands',
    headers: { 'x-instance-id': sessionId },
    payload: { name: 'browser_navigate', payload: { url: 'http://127.0.0.1/' } },
  });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ result: { content: [{ type: 'text', text: 'ran browser_navigate {"url":"http://127.0.0.1/"}' }] }, tabId: 't1' });
  expect(browser.sent[0]).toMatchObject({ sessionId, name: 'browser_navigate' });
});

it('answers 404 for an unknown session', async () => {
  const res = await app.inject({ method: 'POST', url: '/commands', headers: { 'x-instance-id': 'nope' }, payload: { name: 'browser_snapshot' } });
  expect(res.statusCode).toBe(404);
  expect(res.json()).toEqual({ error: { code: 'BMCP_ERR_SESSION_NOT_FOUND', message: expect.stringContaining('session nope is not open'), rpcCode: -32011 } });
});

it('answers 409 for a tab of another session', async () => {
  const a = await openSession();
  const b = await openSession();
  await app.inject({ method: 'POST', url: '/commands', headers: { 'x-instance-id': a }, payload: { name: 'browser_snapshot' } });
  const res = await app.inject({ method: 'POST', url: '/commands', headers: { 'x-instance-id': b }, payload: { name: 'browser_snapshot', tabId: 't1' } });
  expect(res.statusCode).toBe(409);
  expect(res.json().error).toMatchObject({ code: 'BMCP_ERR_TAB_OWNED', message: 'tab t1 is owned by another session' });
});

it.each([
  [{}, { 'x-instance-id': 's' }, '"name" must be the tool name'],
  [{ name: 'browser_snapshot', payload: [1] }, { 'x-instance-id': 's' }, '"payload" must be an object'],
  [{ name: 'browser_snapshot', tabId: 5 }, { 'x-instance-id': 's' }, '"tabId" must be a non-empty string'],
  [{ name: 'browser_snapshot' }, {}, 'the X-Instance-ID header must name the session'],
])('answers 400 with the reason for a bad command %#', async (payload, headers, reason) => {
  const res = await app.inject({ method: 'POST', url: '/commands', headers, payload });
  expect(res.statusCode).toBe(400);
  expect(res.json().error.message).toContain(reason);
});

it('answers 400 for a body that is not JSON', async () => {
  const res = await app.inject({
    method: 'POST',
    url: '/commands',
    headers: { 'x-instance-id': 's', 'content-type': 'application/json' },
    payload: '{not json',
  });
  expect(res.statusCode).toBe(400);
  expect(res.json().error.message).toMatch(/JSON/i);
});

it('closes a session with DELETE /sessions/:id', async () => {
  const id = await openSession();
  expect((await app.inject({ method: 'DELETE', url: `/sessions/${id}` })).statusCode).toBe(204);
  expect(browser.closedSessions).toEqual([id]);
  expect((await app.inject({ method: 'DELETE', url: `/sessions/${id}` })).statusCode).toBe(404);
});

it('refuses a Host header it is not reached by (DNS rebinding)', async () => {
  const res = await app.inject({ method: 'GET', url: '/health', headers: { host: 'evil.example:8765' } });
  expect(res.statusCode).toBe(403);
  expect(res.json().error.message).toContain('Host "evil.example" is not allowed');
  expect((await app.inject({ method: 'GET', url: '/health', headers: { host: '127.0.0.1:8765' } })).statusCode).toBe(200);
});

it('refuses browser Origins that are not allowed, and lets allowed ones and non-browser callers through', async () => {
  const refused = await app.inject({ method: 'GET', url: '/health', headers: { origin: 'http://evil.example' } });
  expect(refused.statusCode).toBe(403);
  expect(refused.json().error.code).toBe('BMCP_ERR_FORBIDDEN');

  const allowing = await buildDaemonApp({ router, corsOrigins: ['https://app.example.com'] });
  try {
    expect((await allowing.inject({ method: 'GET', url: '/health', headers: { origin: 'https://app.example.com' } })).statusCode).toBe(200);
    expect((await allowing.inject({ method: 'GET', url: '/health', headers: { origin: 'https://other.example.com' } })).statusCode).toBe(403);
  } finally {
    await allowing.close();
  }
});

it('rejects bad options at build time with the fix in the message', async () => {
  await expect(buildDaemonApp({ router, extensionIds: ['abc'] })).rejects.toThrow('is not a Chrome extension id (32 letters a-p');
  await expect(buildDaemonApp({ router, corsOrigins: ['*'] })).rejects.toThrow('"*" is not allowed');
  await expect(buildDaemonApp({ router, heartbeatMs: -1 })).rejects.toThrow('"heartbeatMs" must be a positive number');
});

it('closes at once, even with a request still half sent on an open connection', async () => {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  // Headers in, body promised but never sent: the request stays in progress, so the connection is not idle.
  socket.write('POST /sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
  // The server drops it: a reset is how that looks from this side.
  socket.on('error', () => undefined);
  const dropped = new Promise((resolve) => socket.once('close', resolve));
  await app.close();
  await dropped;
});
