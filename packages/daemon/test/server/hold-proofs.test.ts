import type { FastifyInstance } from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { buildDaemonApp, SessionRouter } from '../../src/index.js';
import { connectPeer, hello, holdProofEvent, idOf, signHoldAs, type Peer } from '../helpers/ws-peer.js';

// A browser's key at its hello, and in a cluster (here a daemon told the instance id, as a cluster member is) the
// proof the browser signs that this instance holds it, before it is taken and every 30 s after.
let app: FastifyInstance;
let router: SessionRouter;
let url: string;
const peers: Peer[] = [];

async function start(options: { holdProofsFor?: string; helloTimeoutMs?: number; holdProofRenewMs?: number } = {}): Promise<void> {
  router = new SessionRouter({ gracePeriodMs: 60_000 });
  app = await buildDaemonApp({ router, ...options });
  url = `${(await app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/extension`;
}

afterEach(async () => {
  for (const peer of peers.splice(0)) peer.ws.terminate();
  await app?.close();
  await router?.close();
});

/** A raw peer past `authenticated`: it answers nothing by itself (its hellos are sent as raw frames). */
async function rawPeer(): Promise<Peer> {
  const peer = await connectPeer(url);
  peers.push(peer);
  expect(await peer.next()).toEqual({ jsonrpc: '2.0', method: 'authenticated' });
  return peer;
}

const rawSend = (peer: Peer, message: unknown) => peer.ws.send(JSON.stringify(message));

it("refuses a hello whose browser id is not its key's, on any daemon", async () => {
  await start();
  const peer = await rawPeer();
  const real = hello(idOf('mia-laptop'));
  rawSend(peer, { ...real, payload: { ...real.payload, browserId: idOf('noa-laptop') } });
  expect(await peer.closed).toEqual({ code: 4400, reason: expect.stringContaining("is not its key's") });
  expect(app.browsermcp.extensions.records.size).toBe(0);
});

it('in a cluster: refuses a hello without a key, naming the fix', async () => {
  await start({ holdProofsFor: 'a' });
  const peer = await rawPeer();
  rawSend(peer, hello('old-extension'));
  expect(await peer.closed).toEqual({ code: 4400, reason: expect.stringContaining('update the extension') });
});

it('in a cluster: takes the browser only once it signed that this instance holds it, and keeps the proof', async () => {
  await start({ holdProofsFor: 'a' });
  const id = idOf('mia-laptop');
  const peer = await rawPeer();
  rawSend(peer, hello(id));
  const asked = await peer.next((m) => m.name === 'prove_hold');
  expect(asked.payload).toEqual({ instance: 'a', at: expect.any(Number), user: null });
  // Not taken while the proof is awaited.
  expect(app.browsermcp.extensions.records.has(id)).toBe(false);
  const sig = signHoldAs(id, 'a', asked.payload.at);
  rawSend(peer, holdProofEvent('a', asked.payload.at, sig));
  for (let i = 0; i < 1000 && !app.browsermcp.extensions.records.get(id)?.connection; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(app.browsermcp.extensions.records.get(id)?.hold).toEqual({ key: hello(id).payload.key, at: asked.payload.at, sig });
});

it('in a cluster: asks again while the browser stays, and tells the cluster each new proof', async () => {
  // (a browser that leaves three renewals unanswered is dropped: 300 ms apart leaves this test's answers 0.9 s)
  await start({ holdProofsFor: 'a', holdProofRenewMs: 300 });
  const id = idOf('mia-laptop');
  const proven: string[] = [];
  app.browsermcp.extensions.proven = (browserId) => proven.push(browserId);
  const peer = await rawPeer();
  rawSend(peer, hello(id));
  const ats: number[] = [];
  for (let i = 0; i < 3; i++) {
    const asked = await peer.next((m) => m.name === 'prove_hold');
    ats.push(asked.payload.at);
    rawSend(peer, holdProofEvent('a', asked.payload.at, signHoldAs(id, 'a', asked.payload.at)));
  }
  for (let i = 0; i < 1000 && app.browsermcp.extensions.records.get(id)?.hold?.at !== ats[2]; i++) await new Promise((resolve) => setImmediate(resolve));
  // The first proof takes the browser; each later one replaces it and is told (the cluster writes the entry again).
  expect(app.browsermcp.extensions.records.get(id)?.hold?.at).toBe(ats[2]);
  expect(proven).toEqual([id, id]);
  expect(ats[1]).toBeGreaterThan(ats[0]!);
});

it('in a cluster: drops a browser that stops answering, so that it reconnects with a new proof', async () => {
  await start({ holdProofsFor: 'a', holdProofRenewMs: 50 });
  const id = idOf('mia-laptop');
  const peer = await rawPeer();
  rawSend(peer, hello(id));
  const asked = await peer.next((m) => m.name === 'prove_hold');
  rawSend(peer, holdProofEvent('a', asked.payload.at, signHoldAs(id, 'a', asked.payload.at)));
  // Then silent: the renewals go unanswered.
  expect(await peer.closed).toEqual({ code: 4400, reason: 'the browser stopped answering prove_hold; reconnect' });
});

it('in a cluster: closes a connection whose proof is not what was asked, or not signed by its key', async () => {
  await start({ holdProofsFor: 'a' });
  const id = idOf('mia-laptop');
  const cases: Array<(at: number) => unknown> = [
    // another instance named
    (at) => holdProofEvent('b', at, signHoldAs(id, 'b', at)),
    // an instant that was not asked
    (at) => holdProofEvent('a', at + 1, signHoldAs(id, 'a', at + 1)),
    // signed by another browser's key
    (at) => holdProofEvent('a', at, signHoldAs(idOf('noa-laptop'), 'a', at)),
    // not a signature
    (at) => holdProofEvent('a', at, 'x'),
    // for another user than the one this connection authenticated as (none here)
    (at) => holdProofEvent('a', at, signHoldAs(id, 'a', at, 'mallory')),
  ];
  for (const answer of cases) {
    const peer = await rawPeer();
    rawSend(peer, hello(id));
    const asked = await peer.next((m) => m.name === 'prove_hold');
    rawSend(peer, answer(asked.payload.at));
    expect(await peer.closed).toEqual({ code: 4400, reason: expect.stringContaining('a hold proof that is not what was asked') });
    expect(app.browsermcp.extensions.records.has(id)).toBe(false);
  }
});

it('in a cluster: closes a browser that does not sign in time, saying what it did not do', async () => {
  await start({ holdProofsFor: 'a', helloTimeoutMs: 300 });
  const peer = await rawPeer();
  rawSend(peer, hello(idOf('mia-laptop')));
  await peer.next((m) => m.name === 'prove_hold');
  expect(await peer.closed).toEqual({
    code: 4400,
    reason: "the extension did not sign its hold proof (is the browser's clock more than 10 minutes off?) in time",
  });
});

it('refuses a renewal slower than the protocol allows, naming the bound', async () => {
  router = new SessionRouter({ gracePeriodMs: 60_000 });
  await expect(buildDaemonApp({ router, holdProofsFor: 'a', holdProofRenewMs: 60_000 })).rejects.toThrow('"holdProofRenewMs" must be at most 30000 ms');
});
