import type { FastifyInstance } from 'fastify';
import { isPairingProof, newPairingNonce, newPairingSecret, pairingProof, SealedChannel, type PairingNonces } from '@browsermcp/protocol';
import { startWsRelay, type WsRelay } from '@browsermcp/testkit';
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
  router = new SessionRouter({ gracePeriodMs: 60_000, commandTimeoutMs: 5_000 });
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

/**
 * Answers the daemon's authenticate as an extension holding `secret` would, having dialled `address` (the daemon's
 * own by default); returns the nonces.
 */
async function answer(p: Peer, secret: Uint8Array, address = url): Promise<PairingNonces> {
  const ask = await p.next();
  expect(ask).toMatchObject({ method: 'authenticate', params: { pairing: { nonce: expect.any(String) } } });
  const nonces = { daemon: ask.params.pairing.nonce as string, extension: newPairingNonce(), address };
  p.send({
    jsonrpc: '2.0',
    id: ask.id,
    result: { name: 'x', pairing: { nonce: nonces.extension, address, proof: await pairingProof(secret, 'extension', nonces) } },
  });
  return nonces;
}

/** The extension's end of the sealed channel: sends sealed, reads each frame opened. */
async function sealedEnd(p: Peer, nonces: PairingNonces) {
  const channel = await SealedChannel.create(SECRET, nonces, 'extension');
  return {
    send: async (message: unknown) => p.ws.send(await channel.seal(JSON.stringify(message))),
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
    next: async (match: (message: any) => boolean = () => true): Promise<any> => {
      for (;;) {
        const opened = await channel.open(JSON.stringify(await p.next()));
        if (opened === undefined) throw new Error('a frame from the daemon did not open');
        const message: unknown = JSON.parse(opened);
        if (match(message)) return message;
      }
    },
  };
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
  it('pairs an extension that proves the secret, proves it back before the hello, and seals every frame after', async () => {
    const p = await peer();
    const nonces = await answer(p, SECRET);
    const authenticated = await p.next();
    expect(authenticated.method).toBe('authenticated');
    expect(await isPairingProof(SECRET, 'daemon', nonces, authenticated.params.pairing.proof)).toBe(true);
    const sealed = await sealedEnd(p, nonces);
    await sealed.send(hello('ext-paired'));
    await expect.poll(() => app.browsermcp.extensions.records.get('ext-paired')?.connection != null).toBe(true);
    // A session's secrets reach it, as they reach a paired browser: sealed, so nothing on the way reads them.
    const raw: string[] = [];
    p.ws.on('message', (data) => raw.push(data.toString()));
    await router.openSession('s1', { executorId: 'ext-paired', clientName: 'agent' });
    expect(await sealed.next((m) => m.name === 'session_opened')).toMatchObject({ payload: { settings: { secrets: { PASSWORD: 'hunter2' } } } });
    expect(raw.length).toBeGreaterThan(0);
    for (const frame of raw) expect(frame).toMatch(/^\{"sealed":"[A-Za-z0-9_-]+"\}$/);
  });

  it('closes a paired connection on a frame its browser did not seal (injected, or replayed)', async () => {
    for (const bad of ['clear', 'replayed'] as const) {
      const p = await peer();
      const nonces = await answer(p, SECRET);
      await p.next();
      const channel = await SealedChannel.create(SECRET, nonces, 'extension');
      const first = await channel.seal(JSON.stringify(hello(`ext-${bad}`)));
      p.ws.send(first);
      await expect.poll(() => app.browsermcp.extensions.records.get(`ext-${bad}`)?.connection != null).toBe(true);
      p.ws.send(bad === 'clear' ? JSON.stringify({ wireId: 'w', sessionId: 's', type: 'event', name: 'tab_closed', tabId: '1', payload: null }) : first);
      expect(await p.closed).toEqual({ code: 4401, reason: expect.stringContaining('a frame that the paired browser did not seal') });
    }
  });

  it.each([
    [
      'answers without a proof',
      (p: Peer) => p.next().then((ask) => p.send({ jsonrpc: '2.0', id: ask.id, result: { name: 'x', accessToken: '' } })),
      'this browser is not paired',
    ],
    ['proves another secret', (p: Peer) => answer(p, newPairingSecret()), 'this browser is paired with another browsermcp'],
    [
      'replays a proof made for another connection',
      async (p: Peer) => {
        const ask = await p.next();
        const old = { daemon: newPairingNonce(), extension: newPairingNonce(), address: url };
        p.send({
          jsonrpc: '2.0',
          id: ask.id,
          result: { name: 'x', pairing: { nonce: old.extension, address: url, proof: await pairingProof(SECRET, 'extension', old) } },
        });
      },
      'this browser is paired with another browsermcp',
    ],
    ['says hello without answering', (p: Peer) => p.next().then(() => p.send(hello('ext-sneaky'))), 'answer the authenticate request first'],
    [
      'proves the secret for another address (it was dialled there)',
      (p: Peer) => answer(p, SECRET, 'ws://127.0.0.1:1/extension'),
      "this browser's pairing was made for another address",
    ],
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
    const nonces = await answer(paired, SECRET);
    await paired.next();
    await (await sealedEnd(paired, nonces)).send(hello('ext-owned'));
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
    const nonces = { daemon: asked.params.pairing.nonce as string, extension: newPairingNonce(), address: tokenUrl };
    both.send({
      jsonrpc: '2.0',
      id: asked.id,
      result: {
        name: 'x',
        accessToken: token,
        pairing: { nonce: nonces.extension, address: tokenUrl, proof: await pairingProof(SECRET, 'extension', nonces) },
      },
    });
    const authenticated = await both.next();
    expect(await isPairingProof(SECRET, 'daemon', nonces, authenticated.params.pairing.proof)).toBe(true);

    const wrong = await connectPeer(tokenUrl);
    peers.push(wrong);
    const question = await wrong.next();
    const other = { daemon: question.params.pairing.nonce as string, extension: newPairingNonce(), address: tokenUrl };
    wrong.send({
      jsonrpc: '2.0',
      id: question.id,
      result: {
        name: 'x',
        accessToken: token,
        pairing: { nonce: other.extension, address: tokenUrl, proof: await pairingProof(newPairingSecret(), 'extension', other) },
      },
    });
    expect((await wrong.closed).code).toBe(4401);
  });
});

describe('a relay process where the extension dials, passing the handshake to the real daemon at another port', () => {
  const relays: WsRelay[] = [];
  afterEach(() => {
    for (const r of relays.splice(0)) r.close();
  });

  async function startRelay(inject?: string): Promise<WsRelay> {
    const relay = await startWsRelay(url, inject ? { inject } : {});
    relays.push(relay);
    return relay;
  }

  it('gets no pairing through: the proof holds for the address the extension dialled, not the daemon the relay reaches', async () => {
    const relay = await startRelay();
    const p = await connectPeer(relay.address);
    peers.push(p);
    // The extension proves the secret for the address it dialled, the relay's.
    await answer(p, SECRET, relay.address);
    expect(await p.closed).toEqual({ code: 4401, reason: expect.stringContaining("this browser's pairing was made for another address") });
    // Nothing came back but the question: no session, no secret, no command went through the relay.
    expect(relay.seen()).not.toContain('authenticated');
    expect(relay.seen()).not.toContain('hunter2');
    expect(app.browsermcp.extensions.records.size).toBe(0);
  });

  it('learns nothing and injects nothing once a paired connection runs (a relay spelling the daemon’s own address)', async () => {
    // The strongest relay: one the extension's proof is made for (as if it sat at the daemon's address), which
    // passes the handshake on untouched and then injects a command-like event of its own.
    const injected = JSON.stringify({ wireId: 'w-relay', sessionId: 's-relay', type: 'event', name: 'tab_opened', tabId: '7', payload: null });
    const relay = await startRelay(injected);
    const p = await connectPeer(relay.address);
    peers.push(p);
    const nonces = await answer(p, SECRET, url);
    await p.next();
    const sealed = await sealedEnd(p, nonces);
    await sealed.send(hello('ext-relayed'));
    // The relay's own frame does not open on the daemon: the connection ends, and no tab was claimed for it.
    expect((await p.closed).code).toBe(4401);
    expect(relay.seen()).toContain('injected');
    // Past the handshake (nonces and proofs in the clear, no secret in them), every frame it carried was sealed.
    for (const line of relay
      .seen()
      .split('\n')
      .filter((l) => l.startsWith('frame ') && !l.includes('"jsonrpc"'))) {
      expect(line).toMatch(/^frame to-(daemon|browser) \{"sealed":"[A-Za-z0-9_-]+"\}$/);
    }
  });
});
