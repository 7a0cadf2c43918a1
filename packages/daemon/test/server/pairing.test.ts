import type { FastifyInstance } from 'fastify';
import { isPairingProof, newPairingNonce, newPairingSecret, pairingProof } from '@browsermcp/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDaemonApp, hs256Verifier, SessionRouter, signToken } from '../../src/index.js';
import { connectPeer, hello, type Peer } from '../helpers/ws-peer.js';

// /extension on a daemon that requires pairing: processes posing as the extension, as a local attacker would.

const SECRET = newPairingSecret();
let app: FastifyInstance;
let router: SessionRouter;
let url: string;
const peers: Peer[] = [];

beforeEach(async () => {
  router = new SessionRouter({ graceMs: 60_000, commandTimeoutMs: 5_000 });
  app = await buildDaemonApp({ router, pairingSecret: SECRET, sessionSettings: { secrets: { PASSWORD: 'hunter2' } } });
  url = `${(await app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/extension`;
});

afterEach(async () => {
  for (const p of peers.splice(0)) p.ws.terminate();
  await app.close();
  await router.close();
});

async function peer(): Promise<Peer> {
  const p = await connectPeer(url);
  peers.push(p);
  return p;
}

/** Answers the daemon's authenticate as an extension holding `secret` would; returns the nonces and the request. */
async function answer(p: Peer, secret: Uint8Array) {
  const ask = await p.next();
  expect(ask).toMatchObject({ method: 'authenticate', params: { pairing: { nonce: expect.any(String) } } });
  const nonces = { daemon: ask.params.pairing.nonce as string, extension: newPairingNonce() };
  p.send({ jsonrpc: '2.0', id: ask.id, result: { name: 'x', pairing: { nonce: nonces.extension, proof: await pairingProof(secret, 'extension', nonces) } } });
  return nonces;
}

/** Everything a refused peer received, once its socket closed: nothing but the question. */
async function closedAfterAsking(p: Peer) {
  const closed = await p.closed;
  const received: unknown[] = [];
  for (;;) {
    const next = await Promise.race([p.next(), new Promise((resolve) => setTimeout(() => resolve(undefined), 50))]);
    if (next === undefined) break;
    received.push(next);
  }
  return { closed, received };
}

describe('a daemon that requires pairing', () => {
  it('pairs an extension that proves the secret, and proves it back before the hello', async () => {
    const p = await peer();
    const nonces = await answer(p, SECRET);
    const authenticated = await p.next();
    expect(authenticated.method).toBe('authenticated');
    expect(await isPairingProof(SECRET, 'daemon', nonces, authenticated.params.pairing.proof)).toBe(true);
    p.send(hello('ext-paired'));
    await expect.poll(() => app.browsermcp.extensions.records.get('ext-paired')?.connection != null).toBe(true);
    // A session's secrets reach it, as they reach a paired browser.
    await router.openSession('s1', { executorId: 'ext-paired', clientName: 'agent' });
    expect(await p.next((m) => m.name === 'session_opened')).toMatchObject({ payload: { settings: { secrets: { PASSWORD: 'hunter2' } } } });
  });

  it.each([
    ['answers without a proof', (p: Peer) => p.next().then((ask) => p.send({ jsonrpc: '2.0', id: ask.id, result: { name: 'x', accessToken: '' } })), 'this browser is not paired'],
    ['proves another secret', (p: Peer) => answer(p, newPairingSecret()), 'this browser is paired with another browsermcp'],
    ['replays a proof made for another connection', async (p: Peer) => {
      const ask = await p.next();
      const old = { daemon: newPairingNonce(), extension: newPairingNonce() };
      p.send({ jsonrpc: '2.0', id: ask.id, result: { name: 'x', pairing: { nonce: old.extension, proof: await pairingProof(SECRET, 'extension', old) } } });
    }, 'this browser is paired with another browsermcp'],
    ['says hello without answering', (p: Peer) => p.next().then(() => p.send(hello('ext-sneaky'))), 'answer the authenticate request first'],
  ])('refuses a peer that %s: closed 4401, having received nothing but the question', async (_what, act, reason) => {
    const p = await peer();
    await act(p);
    const { closed, received } = await closedAfterAsking(p);
    expect(closed).toEqual({ code: 4401, reason: expect.stringContaining(reason) });
    expect(received).toEqual([]);
    expect(app.browsermcp.extensions.records.size).toBe(0);
  });

  it('keeps a paired browser when an unpaired peer claims its id', async () => {
    const paired = await peer();
    await answer(paired, SECRET);
    await paired.next();
    paired.send(hello('ext-owned'));
    await expect.poll(() => app.browsermcp.extensions.records.get('ext-owned')?.connection != null).toBe(true);
    const impostor = await peer();
    await impostor.next();
    impostor.send(hello('ext-owned'));
    expect((await impostor.closed).code).toBe(4401);
    expect(paired.ws.readyState).toBe(paired.ws.OPEN);
    expect(app.browsermcp.extensions.records.get('ext-owned')?.connection).not.toBeNull();
  });
});

describe('a daemon that checks tokens and offers pairing (the daemon CLI on loopback with auth)', () => {
  const TOKEN_SECRET = 'z'.repeat(32);
  let tokenApp: FastifyInstance;
  let tokenUrl: string;

  beforeEach(async () => {
    tokenApp = await buildDaemonApp({ router, pairingSecret: SECRET, verifier: hs256Verifier(TOKEN_SECRET) });
    tokenUrl = `${(await tokenApp.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/extension`;
  });
  afterEach(async () => {
    await tokenApp.close();
  });

  it('takes a token alone (a relay behind TLS), or a token with a proof it returns; a wrong proof is refused', async () => {
    const token = await signToken({ userId: 'alice', secret: TOKEN_SECRET });
    const alone = await connectPeer(tokenUrl);
    peers.push(alone);
    const ask = await alone.next();
    alone.send({ jsonrpc: '2.0', id: ask.id, result: { name: 'relay browser', accessToken: token } });
    expect(await alone.next()).toEqual({ jsonrpc: '2.0', method: 'authenticated' });

    const both = await connectPeer(tokenUrl);
    peers.push(both);
    const asked = await both.next();
    const nonces = { daemon: asked.params.pairing.nonce as string, extension: newPairingNonce() };
    both.send({ jsonrpc: '2.0', id: asked.id, result: { name: 'x', accessToken: token, pairing: { nonce: nonces.extension, proof: await pairingProof(SECRET, 'extension', nonces) } } });
    const authenticated = await both.next();
    expect(await isPairingProof(SECRET, 'daemon', nonces, authenticated.params.pairing.proof)).toBe(true);

    const wrong = await connectPeer(tokenUrl);
    peers.push(wrong);
    const question = await wrong.next();
    const other = { daemon: question.params.pairing.nonce as string, extension: newPairingNonce() };
    wrong.send({ jsonrpc: '2.0', id: question.id, result: { name: 'x', accessToken: token, pairing: { nonce: other.extension, proof: await pairingProof(newPairingSecret(), 'extension', other) } } });
    expect((await wrong.closed).code).toBe(4401);
  });
});
