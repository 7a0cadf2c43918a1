import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDaemonApp, hs256Verifier, signToken, type SessionRouter } from '../../src/index.js';
import { connectedRouter, type FakeExecutor } from '../helpers/fake-executor.js';
import { connectPeer, hello } from '../helpers/ws-peer.js';

// Hostile input on every daemon endpoint: clear refusals, no crash, no unbounded growth.
const SECRET = 'fuzzing-secret-of-at-least-32-bytes-long';
let app: FastifyInstance;
let router: SessionRouter;
let browser: FakeExecutor;
let base: string;
let sessionId: string;

beforeAll(async () => {
  ({ router, browser } = await connectedRouter());
  const send = browser.send.bind(browser);
  browser.send = (command) => {
    send(command);
    queueMicrotask(() => browser.respond(command, { ok: true }, command.tabId ?? 't1'));
  };
  app = await buildDaemonApp({ router, verifier: hs256Verifier(SECRET), helloTimeoutMs: 2000 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const res = await fetch(`http://${base}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  sessionId = ((await res.json()) as { sessionId: string }).sessionId;
});
afterAll(async () => {
  await app?.close();
  await router?.close();
});

async function healthy(): Promise<void> {
  expect((await fetch(`http://${base}/health`)).status).toBe(200);
}

describe('fuzzing the daemon', () => {
  it('answers random /commands bodies with 400 (or 200 for a well-formed command), never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc
            .record(
              { name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), payload: fc.jsonValue(), tabId: fc.oneof(fc.string(), fc.integer()) },
              { requiredKeys: [] },
            )
            .map((v) => JSON.stringify(v)),
        ),
        async (body) => {
          const res = await fetch(`http://${base}/commands`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-instance-id': sessionId },
            body,
          });
          const text = await res.text();
          expect(res.status).toBeLessThan(500);
          if (res.status !== 200) expect(JSON.parse(text)).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
        },
      ),
      { numRuns: 150 },
    );
    await healthy();
  });

  it('answers random JSON-RPC on the /mcp WebSocket with JSON-RPC errors and stays up', async () => {
    const peer = await connectPeer(`ws://${base}/mcp`, { origin: undefined });
    const token = await signToken({ userId: 'fuzzer', secret: SECRET });
    peer.send({ jsonrpc: '2.0', id: 1, method: 'mcp_handshake', params: { accessToken: token } });
    expect((await peer.next((m) => m.id === 1)).result).toMatchObject({ authenticated: true });
    const messages = fc.sample(
      fc.record(
        {
          jsonrpc: fc.oneof(fc.constant('2.0'), fc.string()),
          id: fc.oneof(
            fc.integer({ min: 2 }),
            fc.string({ minLength: 1 }).map((s) => `x${s}`),
            fc.constantFrom('proxy:1', 'ext:9'),
          ),
          method: fc.oneof(fc.constantFrom('list_extensions', 'connect', 'disconnect', 'browser_click', 'mcp_handshake'), fc.string()),
          params: fc.jsonValue(),
        },
        { requiredKeys: ['id'] },
      ),
      { numRuns: 120, seed: 7 },
    );
    const ids = new Set<string>();
    for (const m of messages) {
      if (ids.has(JSON.stringify(m.id))) continue;
      ids.add(JSON.stringify(m.id));
      peer.send(m);
      const answer = await peer.next((a) => JSON.stringify(a.id) === JSON.stringify(m.id) || a.id === null);
      // Every request gets an answer; anything malformed is an error with a standard or server code.
      if (answer.error) expect(answer.error.code).toBeLessThan(-31999);
    }
    await healthy();
    peer.ws.close();
  });

  it('closes an /extension socket that sends garbage instead of a hello, and keeps serving', async () => {
    for (const garbage of ['not json', '{"type":"event"}', JSON.stringify({ jsonrpc: '2.0', id: 'proxy:1', result: { name: 1 } }), '[]']) {
      const peer = await connectPeer(`ws://${base}/extension`);
      // With auth on, the daemon asks `authenticate` first; garbage is the wrong answer.
      peer.ws.send(garbage);
      const closed = await peer.closed;
      expect([4400, 4401]).toContain(closed.code);
    }
    const ok = await connectPeer(`ws://${base}/extension`);
    const ask = await ok.next((m) => m.method === 'authenticate');
    ok.send({ jsonrpc: '2.0', id: ask.id, result: { name: 'fuzz browser', accessToken: await signToken({ userId: 'fuzzer', secret: SECRET }) } });
    await ok.next((m) => m.method === 'authenticated');
    ok.send(hello('fuzz-browser'));
    await expect.poll(async () => (await router.stats()).executors).toBe(2);
    ok.ws.close();
    await healthy();
  });
});
