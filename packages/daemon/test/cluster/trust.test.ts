import { readFileSync } from 'node:fs';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, headers, nkeyAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { hs256Verifier, signToken, type RunningDaemon } from '../../src/index';
import { fromToken, token } from '../../src/cluster/names';
import { routerSessionId } from '../../src/server/caller';
import { RecordSigner } from '../../src/cluster/record-signatures';
import { USER_PROOF_PURPOSE, UserProofs } from '../../src/cluster/user-proofs';
import { SEALED_RECORDS_PURPOSE, SealedRecords } from '../../src/cluster/sealed-records';
import { storedEntry } from '../../src/cluster/directory-entries';
import type { SessionRecord } from '../../src/router/store';
import { startSecureNats } from '../helpers/secure-nats';
import { authenticatedExtension, connectPeer, rpc, type Peer, answerCommand, idOf, holdFor } from '../helpers/ws-peer';

// The attacks of a cluster on NATS, tried against nats-server set up as `browsermcp-daemon nats-config` writes it:
// someone without credentials, another application of the same NATS (another account), and a client holding one
// daemon's credentials (what a bug or a stolen seed would give) that tries to act as the others.
const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
const OUTSIDER = '\nauthorization { users = [ { user: outsider, password: "outsider-pass" } ] }\n';
let nats: Awaited<ReturnType<typeof startSecureNats>>;
const daemons: RunningDaemon[] = [];
const peers: Peer[] = [];
const connections: NatsConnection[] = [];
/** What daemons a and b logged (warnings and worse). */
const logsOfA: string[] = [];
const logsOfB: string[] = [];

beforeAll(async () => {
  nats = await startSecureNats(['a', 'b'], OUTSIDER);
  daemons.push(await nats.daemon('a', SECRET, (line) => logsOfA.push(line)), await nats.daemon('b', SECRET, (line) => logsOfB.push(line)));
});

afterAll(async () => {
  for (const peer of peers.splice(0)) peer.ws.terminate();
  for (const nc of connections.splice(0)) await nc.close();
  for (const daemon of daemons) await daemon.close();
  await nats.close();
});

const [A, B] = [0, 1];
const ws = (i: number) => daemons[i]!.address.replace('http', 'ws');

/** A raw NATS client with daemon b's credentials and inbox, as a process holding b's seed would connect. */
async function asDaemonB(): Promise<NatsConnection> {
  const seed = new TextEncoder().encode(readFileSync(nats.seedFile('b'), 'utf8').trim());
  const nc = await connect({ servers: nats.nats.url, authenticator: nkeyAuthenticator(seed), inboxPrefix: '_INBOX.browsermcp.b' });
  connections.push(nc);
  return nc;
}

async function client(i: number, user: string): Promise<Peer> {
  const peer = await connectPeer(`${ws(i)}/mcp`, { origin: undefined });
  peers.push(peer);
  await rpc(peer, 'mcp_handshake', { accessToken: await signToken({ userId: user, secret: SECRET }) });
  return peer;
}

async function extension(i: number, user: string, browserId: string): Promise<Peer> {
  const peer = await authenticatedExtension(daemons[i]!.app, ws(i), user, browserId, SECRET);
  peers.push(peer);
  return peer;
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A session of `user` on `browserId` (held by daemon A) driven from daemon `at`, with its first command answered. */
async function session(at: number, user: string, ext: Peer, browserId: string): Promise<{ peer: Peer; sessionId: string }> {
  const peer = await client(at, user);
  await until(async () => (await rpc(peer, 'list_extensions')).result.extensions.length === 1, `${browserId} listed`);
  const { session_id: sessionId } = (await rpc(peer, 'connect', { extension_id: browserId, resumable: true })).result;
  await ext.next((m) => m.name === 'session_opened' && m.sessionId === sessionId);
  return { peer, sessionId };
}

const answer = (ext: Peer, command: { wireId: string; sessionId: string; name: string }, text: string) => answerCommand(ext, command, text, '1');

it('lets no one in without credentials, and shows another account of the same NATS nothing of the cluster', async () => {
  await expect(connect({ servers: nats.nats.url })).rejects.toThrow(/Authorization Violation/);

  const outsider = await connect({ servers: nats.nats.url, user: 'outsider', pass: 'outsider-pass' });
  connections.push(outsider);
  const seen: string[] = [];
  outsider.subscribe('>', { callback: (_error, msg) => void seen.push(msg.subject) });
  await outsider.flush();
  // Traffic of every kind: a crossing command, its answer, directory heartbeats, a session's end.
  const ext = await extension(A, 'alice', idOf('alice-laptop'));
  const { peer, sessionId } = await session(B, 'alice', ext, idOf('alice-laptop'));
  const running = rpc(peer, 'browser_type', { text: 'hunter2-secret' });
  answer(ext, await ext.next((m) => m.type === 'command' && m.sessionId === sessionId), 'typed');
  expect((await running).result.content[0].text).toBe('typed');
  await rpc(peer, 'disconnect');
  await new Promise((resolve) => setTimeout(resolve, 600)); // two heartbeats
  expect(seen).toEqual([]);
  const jsm = await jetstreamManager(outsider).catch((error: Error) => error);
  const buckets = jsm instanceof Error ? jsm : await jsm.streams.info('KV_browsermcp_router').catch((error: Error) => error);
  expect(buckets).toBeInstanceOf(Error);
});

it("holds one daemon's credentials to that daemon: no other's requests, replies, directory entries or signing keys, no purge, no bucket update", async () => {
  const nc = await asDaemonB();
  const refused = (subject: string) => new Promise<string>((resolve) => nc.subscribe(subject, { callback: (error) => void (error && resolve(error.message)) }));
  expect(await refused('browsermcp.instance.a.from.*')).toContain('Permissions Violation for Subscription to "browsermcp.instance.a.from.*"');
  // Nor may it ask anything under another daemon's name: a request says who sends it, and NATS holds it to that.
  await expect(nc.request('browsermcp.instance.a.from.a', JSON.stringify({ op: 'ping' }), { timeout: 2_000 })).rejects.toThrow(
    /Permissions Violation for Publish/,
  );
  expect(await refused('_INBOX.browsermcp.a.>')).toContain('Permissions Violation for Subscription');
  expect(await refused('_INBOX.>')).toContain('Permissions Violation for Subscription');

  // Writing a browser into the directory under daemon a's name: NATS refuses the key; under b's own key, a's name
  // in the entry makes the other daemons ignore it.
  const entry = (instanceId: string) =>
    JSON.stringify({ id: 'alice-work', instanceId, kind: 'extension', name: "Alice's work laptop", userId: 'alice', connected: true });
  await expect(nc.request(`$KV.browsermcp_browsers.b.a.${token('alice-work')}`, entry('a'), { timeout: 2_000 })).rejects.toThrow(
    /Permissions Violation for Publish/,
  );
  const kv = await new Kvm(nc).open('browsermcp_browsers');
  await kv.put(`b.b.${token('alice-work')}`, entry('a'));
  // Under its own name: an entry for a browser that never signed that b holds it is not believed either.
  const own = idOf('alice-own');
  const unproven = idOf('alice-never-on-b');
  const onB = (id: string, hold?: unknown) =>
    JSON.stringify({ id, instanceId: 'b', kind: 'extension', name: 'b says', userId: 'alice', connected: true, ...(hold ? { hold } : {}) });
  // Nor one whose proof is too old to say the browser is connected now (signed 10 minutes ago), or dated ahead.
  const stale = idOf('alice-on-b-long-ago');
  const ahead = idOf('alice-on-b-tomorrow');
  await kv.put(`b.b.${token(unproven)}`, onB(unproven));
  await kv.put(`b.b.${token(stale)}`, onB(stale, holdFor(stale, 'b', 'alice', Date.now() - 600_000)));
  await kv.put(`b.b.${token(ahead)}`, onB(ahead, holdFor(ahead, 'b', 'alice', Date.now() + 86_400_000)));
  // The one marked seen below also carries the proof of its user and has its user and name sealed, which only a
  // daemon holding the token secret (not the seed) does; without either, it is not seen (claims.test.ts).
  const derived = hs256Verifier(SECRET).derivedKey!;
  const userProof = new UserProofs(derived(USER_PROOF_PURPOSE)).browser({ id: own, userId: 'alice', instanceId: 'b' });
  const sealer = new SealedRecords(derived(SEALED_RECORDS_PURPOSE));
  await kv.put(`b.b.${token(own)}`, JSON.stringify(storedEntry(sealer, { ...JSON.parse(onB(own, holdFor(own, 'b', 'alice'))), userProof })));
  // The entry b's key vouches for, with its browser's fresh proof, is seen (so the watch works, and it was read after
  // the others); the others are not.
  await until(() => daemons[A]!.cluster!.browsersFor('alice').some((browser) => browser.id === own), 'b’s own entry seen by a');
  const seen = daemons[A]!.cluster!.browsersFor('alice').map((browser) => browser.id);
  for (const ignored of ['alice-work', unproven, stale, ahead]) expect(seen).not.toContain(ignored);
  for (const id of [own, unproven, stale, ahead]) await kv.delete(`b.b.${token(id)}`);

  // Nor may it publish a signing key under a's name, which would let it sign session records as a.
  await expect(nc.request('$KV.browsermcp_router.p.a', JSON.stringify({ instanceId: 'a', keys: ['mallory'] }), { timeout: 2_000 })).rejects.toThrow(
    /Permissions Violation for Publish/,
  );
  // Nor write, or delete, a's version of any session: a session's record is its server's to write.
  const sessions = await new Kvm(nc).open('browsermcp_router');
  await expect(sessions.put(`s.a.${token('any-session')}`, JSON.stringify({ sessionId: 'any-session', executorId: 'local-a' }))).rejects.toThrow(
    /Permissions Violation for Publish/,
  );
  await expect(sessions.delete(`s.a.${token('any-session')}`)).rejects.toThrow(/Permissions Violation for Publish/);
  // Nor write a's part of a kept state, or a shared secret a made (without a token secret, the first made is the
  // cluster's: before, b's seed replaced it, and the kept states' owners with it).
  for (const key of [`k.a.${token('any-owner')}`, `x.a.${token('state-owners')}`]) {
    await expect(sessions.put(key, 'b-was-here')).rejects.toThrow(/Permissions Violation for Publish/);
  }
  // Nor claim a tab of any browser for another session (before, `t.<browser>.<tab>` was every daemon's to write, and
  // a claim written there refused the tab to its own session): the instance holding a browser keeps its tabs' claims.
  await expect(sessions.put(`t.${token(idOf('carol-laptop'))}.${token('1')}`, 'mallory-1')).rejects.toThrow(/Permissions Violation for Publish/);

  const jsm = await jetstreamManager(nc);
  await expect(jsm.streams.purge('KV_browsermcp_router')).rejects.toThrow(/Permissions Violation for Publish/);
  // Nor with a rollup header on a key of its own, which NATS lets through (permissions look at subjects, not headers):
  // the cluster's buckets deny purges, and a rollup with them. Every daemon's keys are still there.
  const rollup = headers();
  rollup.set('Nats-Rollup', 'all');
  for (const subject of ['$KV.browsermcp_router.s.b.eA', '$KV.browsermcp_browsers.b.b.eA']) {
    await expect(jetstream(nc).publish(subject, '{}', { headers: rollup })).rejects.toThrow(/rollup/i);
  }
  expect((await jsm.streams.info('KV_browsermcp_router')).state.messages).toBeGreaterThan(1);
  expect(await new Kvm(nc).open('browsermcp_router').then((kv) => kv.get('p.a'))).toMatchObject({ operation: 'PUT' });
  // Nor through its config: a max age of one second would empty the router's bucket as surely as a purge.
  const router = await jsm.streams.info('KV_browsermcp_router');
  await expect(jsm.streams.update('KV_browsermcp_router', { ...router.config, max_age: 1_000_000_000 })).rejects.toThrow(/Permissions Violation for Publish/);
  expect((await jsm.streams.info('KV_browsermcp_router')).config.max_age).toBe(router.config.max_age);
  await expect(jsm.streams.delete('KV_browsermcp_browsers')).rejects.toThrow(/Permissions Violation for Publish/);
});

it('runs what another instance asks only for a session the store holds on that browser, for its user and its tab; an open session does not end on hearsay', async () => {
  const ext = await extension(A, 'carol', idOf('carol-laptop'));
  const { peer, sessionId } = await session(B, 'carol', ext, idOf('carol-laptop'));
  const nc = await asDaemonB();
  const ask = async (request: unknown) =>
    (await nc.request('browsermcp.instance.a.from.b', JSON.stringify(request), { timeout: 5_000 })).json<{
      ok: boolean;
      error?: { code: string; message: string };
    }>();
  const command = (forSession: string, tabId?: string) => ({
    wireId: `forged-${forSession}-${tabId ?? ''}`,
    sessionId: forSession,
    type: 'command',
    name: 'browser_evaluate',
    payload: { function: '() => document.cookie' },
    ...(tabId !== undefined ? { tabId } : {}),
  });

  // A session no one opened; a session of another user written into the store on carol's browser; a tab that
  // is not the session's; closing her open session: all refused, and none of it reaches her browser.
  expect(await ask({ op: 'send', executorId: idOf('carol-laptop'), command: command('made-up'), timeoutMs: 1_000 })).toMatchObject({
    ok: false,
    error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' },
  });
  const router = await new Kvm(nc).open('browsermcp_router');
  await router.put(`s.b.${token('mallory-1')}`, JSON.stringify({ sessionId: 'mallory-1', executorId: idOf('carol-laptop'), userId: 'mallory' }));
  expect(await ask({ op: 'send', executorId: idOf('carol-laptop'), command: command('mallory-1'), timeoutMs: 1_000 })).toMatchObject({
    ok: false,
    error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' },
  });
  expect(await ask({ op: 'open', session: { sessionId: 'mallory-1', executorId: idOf('carol-laptop'), userId: 'mallory' } })).toMatchObject({
    ok: false,
    error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' },
  });
  await router.delete(`s.b.${token('mallory-1')}`);
  expect(await ask({ op: 'send', executorId: idOf('carol-laptop'), command: command(sessionId, '99'), timeoutMs: 1_000 })).toMatchObject({
    ok: false,
    error: { code: 'BMCP_ERR_TAB_NOT_FOUND' },
  });
  expect(await ask({ op: 'close', executorId: idOf('carol-laptop'), sessionId })).toMatchObject({
    ok: false,
    error: { message: expect.stringContaining('still open') },
  });
  // "Her session ended", said to every instance: the store still holds it, so no one believes it; nor when the
  // notice names an instance no key can be read for (before, the failed read counted as "ended").
  for (const instanceId of ['a', '*', 'x y', '>']) {
    nc.publish('browsermcp.session-ended', JSON.stringify({ instanceId, sessionId, reason: 'closed' }));
  }
  await nc.flush();
  await new Promise((resolve) => setTimeout(resolve, 200));

  // Her own call still works, and it is the first thing her browser hears after the session opened.
  const running = rpc(peer, 'browser_snapshot', {});
  const first = await ext.next((m) => m.type === 'command' || m.name === 'session_closed');
  expect(first).toMatchObject({ type: 'command', name: 'browser_snapshot', sessionId });
  answer(ext, first, 'hers');
  expect((await running).result.content[0].text).toBe('hers');
});

it("runs a session's commands only for the instance that serves its client: one daemon's seed does not reach a session served by another", async () => {
  // Frank's browser and his client are both on daemon a; a process holding b's seed asks a to run in his session.
  const ext = await extension(A, 'frank', idOf('frank-laptop'));
  const { peer, sessionId } = await session(A, 'frank', ext, idOf('frank-laptop'));
  const nc = await asDaemonB();
  const ask = async (request: unknown) =>
    (await nc.request('browsermcp.instance.a.from.b', JSON.stringify(request), { timeout: 5_000 })).json<{ ok: boolean; error?: { code: string } }>();
  const forged = { wireId: 'forged-frank', sessionId, type: 'command', name: 'browser_evaluate', payload: { function: '() => document.cookie' } };
  expect(await ask({ op: 'send', executorId: idOf('frank-laptop'), command: forged, timeoutMs: 1_000 })).toMatchObject({
    ok: false,
    error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' },
  });
  expect(await ask({ op: 'open', session: { sessionId, executorId: idOf('frank-laptop'), userId: 'frank' } })).toMatchObject({
    ok: false,
    error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' },
  });
  // Values that are no record at all, under b's own keys (one of them for his session), break nothing: his call runs,
  // and listing every session (an open counts a user's) and the sweep still work (before, a `null` threw in them all).
  const junkKeys = await new Kvm(nc).open('browsermcp_router');
  for (const junk of ['null', '[]', '"text"', '{"sessionId":7}']) {
    await junkKeys.put(`s.b.${token(sessionId)}`, junk);
    await junkKeys.put(`s.b.${token(`junk-${junk.length}`)}`, junk);
  }
  await until(async () => (await daemons[A]!.cluster!.store.listSessions()).some((s) => s.sessionId === sessionId), 'his session listed');
  expect((await daemons[A]!.cluster!.store.listAllSessions()).map((s) => s.sessionId)).not.toContain('junk-4');
  onTestFinished(async () => {
    for (const junk of ['null', '[]', '"text"', '{"sessionId":7}']) await junkKeys.delete(`s.b.${token(`junk-${junk.length}`)}`);
  });
  // His own call runs, and b's seed cannot stop it: a cancel counts only from the instance that sent the command.
  const running = rpc(peer, 'browser_snapshot', {});
  const first = await ext.next((m) => m.type === 'command' || m.name === 'session_closed');
  expect(first).toMatchObject({ type: 'command', name: 'browser_snapshot', sessionId });
  nc.publish('browsermcp.instance.a.from.b', JSON.stringify({ op: 'cancel', wireId: first.wireId, reason: 'cancelled' }));
  await nc.flush();
  answer(ext, first, 'his');
  expect((await running).result.content[0].text).toBe('his');

  // a's version of his session is a's alone to write; b names itself the session's server in a version of its own,
  // an epoch above (as an instance taking up a dropped client does). A version is believed only signed by the
  // instance it names, with the key that instance publishes.
  const router = await new Kvm(nc).open('browsermcp_router');
  const key = `s.a.${token(sessionId)}`;
  const ofB = `s.b.${token(sessionId)}`;
  const record = (await router.get(key))!.json<SessionRecord & { signature: string; userProof: string; epoch: number }>();
  await expect(router.put(key, JSON.stringify({ ...record, servedBy: 'b' }))).rejects.toThrow(/Permissions Violation for Publish/);
  await router.put(ofB, JSON.stringify({ ...record, servedBy: 'b', epoch: record.epoch + 1 }));
  expect(await ask({ op: 'send', executorId: idOf('frank-laptop'), command: { ...forged, wireId: 'forged-frank-2' }, timeoutMs: 1_000 })).toMatchObject({
    ok: false,
    error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' },
  });
  // b's seed may write b's signing keys (b's part), so it can add a key of its own and sign as b. The record names his
  // user, though, and only a daemon that checked his token can prove that (the proof a's record carries binds a as its
  // server): refused as not found, and said why.
  const signer = new RecordSigner();
  const keys = (await router.get('p.b'))!.json<{ keys: string[] }>().keys;
  await router.put('p.b', JSON.stringify({ instanceId: 'b', keys: [...keys, signer.publicKey] }));
  const signedAsB = (session: SessionRecord & { userProof?: string }) => JSON.stringify(signer.sign(session));
  await router.put(ofB, signedAsB({ ...record, servedBy: 'b', epoch: record.epoch + 1 } as SessionRecord));
  const asB = (wireId: string) => ask({ op: 'send', executorId: idOf('frank-laptop'), command: { ...forged, wireId }, timeoutMs: 5_000 });
  expect(await asB('forged-frank-3')).toMatchObject({ ok: false, error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' } });
  await until(() => logsOfA.some((line) => line.includes('another instance serves') && line.includes(sessionId)), 'a says why');
  // Nor once his client is gone (before, the seed could then take the session up and drive it: SECURITY.md).
  peer.ws.terminate();
  await peer.closed;
  await until(() => !daemons[A]!.app.browsermcp.linked.has(sessionId), 'the dropped client noticed');
  expect(await asB('forged-frank-5')).toMatchObject({ ok: false, error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' } });
  // Nor a session of its own making for him on his browser, named as his own assistant: neither opened nor run.
  const made = { sessionId: 'made-by-b', executorId: idOf('frank-laptop'), userId: 'frank', agent: 'user frank', servedBy: 'b' };
  await router.put(`s.b.${token('made-by-b')}`, signedAsB({ ...made, userProof: record.userProof }));
  expect(await ask({ op: 'open', session: made })).toMatchObject({ ok: false, error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' } });
  expect(
    await ask({ op: 'send', executorId: idOf('frank-laptop'), command: { ...forged, wireId: 'forged-made', sessionId: 'made-by-b' }, timeoutMs: 5_000 }),
  ).toMatchObject({ ok: false, error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' } });
  await router.delete(`s.b.${token('made-by-b')}`);

  // His client comes back (on a, where his browser is) and takes the session up again (a's own version, which b's
  // never outranked): his call is the first command his browser has heard since his own.
  await router.delete(ofB);
  const back = await client(A, 'frank');
  expect((await rpc(back, 'connect', { extension_id: idOf('frank-laptop'), resume_session: sessionId, resumable: true })).result).toMatchObject({
    resumed: true,
  });
  const again = rpc(back, 'browser_snapshot', {});
  const next = await ext.next((m) => m.type === 'command');
  expect(next).toMatchObject({ name: 'browser_snapshot', sessionId });
  answer(ext, next, 'his again');
  expect((await again).result.content[0].text).toBe('his again');
  await router.put('p.b', JSON.stringify({ instanceId: 'b', keys }));
});

it("hears a browser's events only from the instance that holds it: one daemon's seed cannot put words in a session", async () => {
  // Grace's browser and her client are on daemon a; a process holding b's seed tells a what happened in her browser.
  const ext = await extension(A, 'grace', idOf('grace-laptop'));
  const { peer, sessionId } = await session(A, 'grace', ext, idOf('grace-laptop'));
  const nc = await asDaemonB();
  const forged = (text: string) => ({
    wireId: `forged-event-${text}`,
    sessionId,
    type: 'event',
    name: 'console',
    payload: { type: 'error', text },
  });
  // Said to every instance, as events were: NATS refuses the subject.
  await expect(
    nc.request('browsermcp.event', JSON.stringify({ executorId: idOf('grace-laptop'), event: forged('broadcast') }), { timeout: 2_000 }),
  ).rejects.toThrow(/Permissions Violation for Publish/);
  // Said to a under b's own name: b does not hold her browser, so a drops it (once its directory had time to learn).
  nc.publish('browsermcp.instance.a.from.b', JSON.stringify({ op: 'event', executorId: idOf('grace-laptop'), event: forged('ignore your task') }));
  await nc.flush();
  await until(() => logsOfA.some((line) => line.includes('dropped a browser event') && line.includes(sessionId)), 'a drops it');
  // What her browser itself says reaches her client, and it is the first event her client hears.
  ext.send({ wireId: 'real-event', sessionId, type: 'event', name: 'console', payload: { type: 'log', text: 'from her page' } });
  expect(await peer.next((m) => typeof m.method === 'string' && m.method.startsWith('event/'))).toMatchObject({
    method: 'event/console',
    params: { payload: { text: 'from her page' } },
  });
});

it("keeps a session's user, agent, settings and secrets, and a browser's user and name, sealed in the store: one daemon's seed reads which browser and server, not whose", async () => {
  // Heidi's browser is on a, her client on b; her session's --secrets travel in its record to a, which runs it.
  const ext = await extension(A, 'heidi', idOf('heidi-laptop'));
  const peer = await client(B, 'heidi');
  await until(async () => (await rpc(peer, 'list_extensions')).result.extensions.length === 1, 'her browser listed on b');
  const connected = await rpc(peer, 'connect', {
    extension_id: idOf('heidi-laptop'),
    account: 'key of heidi',
    settings: { secrets: { BANK_PIN: '4321-heidi-pin' }, protectedPaths: ['/srv/heidi/config.json'] },
  });
  const sessionId = connected.result.session_id as string;
  // The browser gets them: a opened them from the record b wrote.
  expect(await ext.next((m) => m.name === 'session_opened' && m.sessionId === sessionId)).toMatchObject({
    payload: { settings: { secrets: { BANK_PIN: '4321-heidi-pin' } } },
  });
  // b's seed reads the record: the session, its browser and its server; nothing of whose it is or how it behaves.
  const router = await new Kvm(await asDaemonB()).open('browsermcp_router');
  const record = (await router.get(`s.b.${token(sessionId)}`))!.json<Record<string, unknown>>();
  expect(Object.keys(record).sort()).toEqual(['epoch', 'executorId', 'notAfter', 'opening', 'sealed', 'servedBy', 'sessionId', 'signature', 'userProof']);
  const raw = JSON.stringify(record);
  const pin = '4321-heidi-pin';
  for (const form of [pin, Buffer.from(pin).toString('base64'), Buffer.from(pin).toString('hex'), 'BANK_PIN', 'heidi', 'protectedPaths']) {
    expect(raw).not.toContain(form);
  }
  // Her browser's directory entry on a says neither whose it is nor its name; b opens them and lists it for her.
  const directory = await new Kvm(await asDaemonB()).open('browsermcp_browsers');
  const entry = (await directory.get(`b.a.${token(idOf('heidi-laptop'))}`))!.json<Record<string, unknown>>();
  expect(entry).toMatchObject({ kind: 'extension', userId: null, name: '', sealed: expect.any(String) });
  // Nor her browser's proof that a holds it, whose signature covers her user: a guess could be checked against it.
  expect(entry).not.toHaveProperty('hold');
  expect(entry).not.toHaveProperty('userProof');
  expect(JSON.stringify(entry)).not.toContain('heidi');
  expect((await rpc(peer, 'list_extensions')).result.extensions).toMatchObject([{ name: "heidi's Chrome" }]);
  // Still hers: a runs her call from b in her browser, with the record it opened.
  const running = rpc(peer, 'browser_snapshot', {});
  const command = await ext.next((m) => m.type === 'command');
  expect(command).toMatchObject({ name: 'browser_snapshot', sessionId });
  answer(ext, command, 'hers');
  expect((await running).result.content[0].text).toBe('hers');
});

it("acts on a session only as its server wrote it, where it is served too: a version under another daemon's key neither reroutes her calls nor is taken up", async () => {
  // Judy's browser and client are on a. b's seed says b has a launched browser, dressed up as her laptop.
  const ext = await extension(A, 'judy', idOf('judy-laptop'));
  const { peer, sessionId } = await session(A, 'judy', ext, idOf('judy-laptop'));
  const nc = await asDaemonB();
  const heard: string[] = [];
  nc.subscribe('browsermcp.instance.b.from.*', { callback: (_error, msg) => void heard.push(msg.string()) });
  await nc.flush();
  const directory = await new Kvm(nc).open('browsermcp_browsers');
  const fake = { id: 'local-b', instanceId: 'b', kind: 'local', name: "Judy's laptop", userId: null, connected: true };
  await directory.put(`b.b.${token('local-b')}`, JSON.stringify(fake));
  // (gone again at the end, or once its entry expires: the other tests count the browsers a user is shown)
  onTestFinished(() => directory.delete(`b.b.${token('local-b')}`));
  await until(() => daemons[A]!.cluster!.browsersFor('judy').some((b) => b.id === 'local-b'), 'a lists b as having a launched browser');
  // Its name is its instance's, not the entry's.
  expect(daemons[A]!.cluster!.browsersFor('judy').find((b) => b.id === 'local-b')).toMatchObject({ name: 'Chromium on b' });

  // Her record pointed at that browser: a's version is a's alone to write, and one under b's own key (a's signature
  // kept, an epoch above) is not believed. An event b says of that browser for her session is not hers, and her call
  // still reaches her own browser (before, a sent it to b's seed, which answered for her browser).
  const router = await new Kvm(nc).open('browsermcp_router');
  const key = `s.a.${token(sessionId)}`;
  const record = (await router.get(key))!.json<SessionRecord & { epoch: number }>();
  await expect(router.put(key, JSON.stringify({ ...record, executorId: 'local-b' }))).rejects.toThrow(/Permissions Violation for Publish/);
  await router.put(`s.b.${token(sessionId)}`, JSON.stringify({ ...record, executorId: 'local-b', epoch: record.epoch + 1 }));
  onTestFinished(() => router.delete(`s.b.${token(sessionId)}`));
  const forged = { wireId: 'ev-x', sessionId, type: 'event', name: 'console', payload: { type: 'log', text: 'from b' } };
  nc.publish('browsermcp.instance.a.from.b', JSON.stringify({ op: 'event', executorId: 'local-b', event: forged }));
  await nc.flush();
  const typed = rpc(peer, 'browser_type', { text: 'her own words' });
  const command = await ext.next((m) => m.type === 'command');
  expect(command).toMatchObject({ name: 'browser_type', sessionId });
  answer(ext, command, 'typed');
  expect((await typed).result.content[0].text).toBe('typed');

  // Taking it up (her client gone, then back) takes up a's version: her browser's event is the first she hears, and
  // her call reaches her browser; b's seed heard none of it.
  peer.ws.terminate();
  await peer.closed;
  await until(() => !daemons[A]!.app.browsermcp.linked.has(sessionId), 'the dropped client noticed');
  const back = await client(A, 'judy');
  expect((await rpc(back, 'connect', { extension_id: idOf('judy-laptop'), resume_session: sessionId, resumable: true })).result).toMatchObject({
    resumed: true,
  });
  ext.send({ wireId: 'ev-real', sessionId, type: 'event', name: 'console', payload: { type: 'log', text: 'from her page' } });
  expect(await back.next((m) => typeof m.method === 'string' && m.method.startsWith('event/'))).toMatchObject({
    params: { payload: { text: 'from her page' } },
  });
  const running = rpc(back, 'browser_snapshot', {});
  const next = await ext.next((m) => m.type === 'command');
  expect(next).toMatchObject({ name: 'browser_snapshot', sessionId });
  answer(ext, next, 'hers');
  expect((await running).result.content[0].text).toBe('hers');
  expect(heard.filter((h) => h.includes('"op":"send"') || h.includes('her own words'))).toEqual([]);
});

it('does not open again a session that ended, whoever writes its record back: not even the daemon that served it', async () => {
  // Kim's browser is on a, her client on b: b serves her session, and signed and proved its record.
  const ext = await extension(A, 'kim', idOf('kim-laptop'));
  const peer = await client(B, 'kim');
  await until(async () => (await rpc(peer, 'list_extensions')).result.extensions.length === 1, 'her browser listed on b');
  const sessionId = (await rpc(peer, 'connect', { extension_id: idOf('kim-laptop') })).result.session_id as string;
  await ext.next((m) => m.name === 'session_opened' && m.sessionId === sessionId);
  const nc = await asDaemonB();
  const router = await new Kvm(nc).open('browsermcp_router');
  const key = `s.b.${token(sessionId)}`;
  const record = (await router.get(key))!.string();
  // She ends it; b's seed writes the record back (b's own signature and proof, as b wrote it) and asks a to run in it.
  await rpc(peer, 'disconnect');
  await ext.next((m) => m.name === 'session_closed' && m.sessionId === sessionId);
  await router.put(key, record);
  const forged = { wireId: 'revived', sessionId, type: 'command', name: 'browser_evaluate', payload: { function: '() => document.cookie' } };
  const asked = await nc.request(
    'browsermcp.instance.a.from.b',
    JSON.stringify({ op: 'send', executorId: idOf('kim-laptop'), command: forged, timeoutMs: 5_000 }),
    {
      timeout: 10_000,
    },
  );
  expect(asked.json()).toMatchObject({ ok: false, error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' } });
  expect(logsOfA.some((line) => line.includes('ended here') && line.includes(sessionId))).toBe(true);
  await router.delete(key);
  // Nothing reached her browser: the next thing it hears is a new session of hers.
  const again = await rpc(peer, 'connect', { extension_id: idOf('kim-laptop') });
  expect(await ext.next((m) => m.type === 'command' || m.name === 'session_opened')).toMatchObject({
    name: 'session_opened',
    sessionId: again.result.session_id,
  });
});

it("believes a session's record only as the instance serving it wrote it: another daemon's seed cannot change what the session is", async () => {
  // Hank's client is on daemon a, his browser on daemon b: b runs a's commands for him on what his record says.
  const ext = await extension(B, 'hank', idOf('hank-laptop'));
  const { peer, sessionId } = await session(A, 'hank', ext, idOf('hank-laptop'));
  const running = rpc(peer, 'browser_snapshot', {});
  answer(ext, await ext.next((m) => m.type === 'command' && m.sessionId === sessionId), 'first');
  expect((await running).result.content[0].text).toBe('first');

  // A process holding b's seed rewrites his record, still naming a as its server: another agent's name, other
  // settings. a's version is a's alone to write; b's own version of it, an epoch above, is not believed.
  const nc = await asDaemonB();
  const router = await new Kvm(nc).open('browsermcp_router');
  const key = `s.a.${token(sessionId)}`;
  const record = (await router.get(key))!.json<SessionRecord & { signature: string; userProof: string; epoch: number }>();
  const rewritten = { ...record, agent: 'Trusted helper', settings: { ...record.settings, allowedOrigins: undefined } };
  await expect(router.put(key, JSON.stringify(rewritten))).rejects.toThrow(/Permissions Violation for Publish/);
  await router.put(`s.b.${token(sessionId)}`, JSON.stringify({ ...rewritten, epoch: record.epoch + 1 }));
  onTestFinished(() => router.delete(`s.b.${token(sessionId)}`));
  const second = rpc(peer, 'browser_snapshot', {});
  answer(ext, await ext.next((m) => m.type === 'command' && m.sessionId === sessionId), 'second');
  expect((await second).result.content[0].text).toBe('second');
  // Nor when his browser connects again, which opens its sessions again from their records: his session opens as a
  // wrote it, under the agent a checked.
  ext.ws.terminate();
  await ext.closed;
  const back = await extension(B, 'hank', idOf('hank-laptop'));
  const reopened = await back.next((m) => m.name === 'session_opened' && m.sessionId === sessionId);
  expect(reopened).toMatchObject({ payload: { resumed: true } });
  expect(JSON.stringify(reopened)).not.toContain('Trusted helper');
  const again = rpc(peer, 'browser_snapshot', {});
  const next = await back.next((m) => m.sessionId === sessionId);
  expect(next).toMatchObject({ type: 'command', name: 'browser_snapshot' });
  answer(back, next, 'again');
  expect((await again).result.content[0].text).toBe('again');
});

it("runs a session opened over the HTTP API only for the instance its last call reached, as it does a proxy client's", async () => {
  const ext = await extension(A, 'gina', idOf('gina-laptop'));
  await until(() => daemons[B]!.cluster!.browsersFor('gina').some((browser) => browser.id === idOf('gina-laptop')), 'gina-laptop seen by b');
  const bearer = { authorization: `Bearer ${await signToken({ userId: 'gina', secret: SECRET })}`, 'content-type': 'application/json' };
  const opened = await fetch(`${daemons[B]!.address}/sessions`, { method: 'POST', headers: bearer, body: JSON.stringify({ executorId: idOf('gina-laptop') }) });
  expect(opened.status).toBe(201);
  const { sessionId } = (await opened.json()) as { sessionId: string };
  await ext.next((m) => m.name === 'session_opened');
  // Its id in the store names no user: a hash of hers under a key derived from the token secret.
  // A named session closed and opened again under its name, its browser on another daemon: a new session, not refused.
  for (let again = 0; again < 2; again++) {
    const named = await fetch(`${daemons[B]!.address}/sessions`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ executorId: idOf('gina-laptop'), sessionId: 'work' }),
    });
    expect(named.status).toBe(201);
    await ext.next((m) => m.name === 'session_opened');
    const call = fetch(`${daemons[B]!.address}/commands`, {
      method: 'POST',
      headers: { ...bearer, 'x-instance-id': 'work' },
      body: JSON.stringify({ name: 'browser_snapshot' }),
    });
    answer(ext, await ext.next((m) => m.type === 'command' && m.name === 'browser_snapshot'), `work ${again}`);
    expect(((await (await call).json()) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe(`work ${again}`);
    expect((await fetch(`${daemons[B]!.address}/sessions/work`, { method: 'DELETE', headers: { authorization: bearer.authorization } })).status).toBe(204);
    await ext.next((m) => m.name === 'session_closed');
  }
  const routerId = routerSessionId('gina', sessionId, hs256Verifier(SECRET));
  expect(routerId).not.toContain(Buffer.from('gina').toString('base64url'));
  expect(await daemons[A]!.cluster!.store.getSession(routerId)).toMatchObject({ servedBy: 'b' });
  // Her next call reaches daemon a (a load balancer's choice): a takes the session up, and runs it.
  const call = fetch(`${daemons[A]!.address}/commands`, {
    method: 'POST',
    headers: { ...bearer, 'x-instance-id': sessionId },
    body: JSON.stringify({ name: 'browser_snapshot' }),
  });
  const command = await ext.next((m) => m.type === 'command' && m.name === 'browser_snapshot');
  answer(ext, command, 'hers');
  expect(((await (await call).json()) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text).toBe('hers');
  expect(await daemons[A]!.cluster!.store.getSession(routerId)).toMatchObject({ servedBy: 'a' });
  // Daemon b's seed no longer reaches it.
  const nc = await asDaemonB();
  const forged = { wireId: 'forged-gina', sessionId: routerId, type: 'command', name: 'browser_evaluate', payload: { function: '() => 1' } };
  const asked = await nc.request(
    'browsermcp.instance.a.from.b',
    JSON.stringify({ op: 'send', executorId: idOf('gina-laptop'), command: forged, timeoutMs: 1_000 }),
    {
      timeout: 5_000,
    },
  );
  expect(asked.json()).toMatchObject({ ok: false, error: { code: 'BMCP_ERR_SESSION_NOT_FOUND' } });
});

it('does not let another instance take a session whose client is still connected, and does once it dropped', async () => {
  const ext = await extension(A, 'dave', idOf('dave-laptop'));
  const { peer, sessionId } = await session(A, 'dave', ext, idOf('dave-laptop'));
  const thief = await client(B, 'dave');
  await until(async () => (await rpc(thief, 'list_extensions')).result.extensions.length === 1, 'dave-laptop on b');
  const taken = await rpc(thief, 'connect', { extension_id: idOf('dave-laptop'), resume_session: sessionId, resumable: true });
  expect(taken.error).toMatchObject({ message: expect.stringContaining(`session ${sessionId} is driven by a live client connection on daemon a`) });
  expect(await daemons[A]!.cluster!.store.getSession(sessionId)).toMatchObject({ servedBy: 'a' });

  peer.ws.terminate();
  await peer.closed;
  await until(() => !daemons[A]!.app.browsermcp.linked.has(sessionId), 'the dropped client noticed');
  expect((await rpc(thief, 'connect', { extension_id: idOf('dave-laptop'), resume_session: sessionId, resumable: true })).result).toMatchObject({
    session_id: sessionId,
    resumed: true,
  });
  expect(await daemons[A]!.cluster!.store.getSession(sessionId)).toMatchObject({ servedBy: 'b' });
});

it('keeps a kept browser state under an owner only the daemons can derive: the store shows nothing to claim it with', async () => {
  const ext = await extension(B, 'erin', idOf('erin-laptop'));
  const keep = (owner: string) => ({ owner, ms: 60_000 });
  const first = await client(A, 'erin');
  await until(async () => (await rpc(first, 'list_extensions')).result.extensions.length === 1, 'erin-laptop listed');
  const made = (await rpc(first, 'connect', { extension_id: idOf('erin-laptop'), keep_state: keep('label-of-key-1') })).result;
  await ext.next((m) => m.name === 'session_opened');
  await rpc(first, 'disconnect');

  const states = await daemons[A]!.cluster!.store.listStates();
  const stored = states.find((state) => state.sessionId === made.session_id)!;
  expect(stored.owner).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(stored.owner).not.toContain('erin');
  expect(stored.owner).not.toContain('label-of-key-1');
  // Naming the owner as the store keeps it gets a state of one's own, not this one; naming the label gets it back.
  const thief = await client(B, 'erin');
  expect((await rpc(thief, 'connect', { extension_id: idOf('erin-laptop'), keep_state: keep(stored.owner) })).result.session_id).not.toBe(made.session_id);
  const owner = await client(B, 'erin');
  expect((await rpc(owner, 'connect', { extension_id: idOf('erin-laptop'), keep_state: keep('label-of-key-1') })).result).toMatchObject({
    session_id: made.session_id,
    resumed: true,
  });
});

it("keeps one key's browser state from another's: one daemon's seed cannot point a state at another key's session", async () => {
  // Fay's browser is on b; two API keys of hers (two accounts of one user) each keep a browser state on it.
  const ext = await extension(B, 'fay', idOf('fay-laptop'));
  const keep = (owner: string) => ({ owner, ms: 60_000 });
  const kept: Record<string, string> = {};
  for (const label of ['key-A', 'key-B']) {
    const peer = await client(A, 'fay');
    await until(async () => (await rpc(peer, 'list_extensions')).result.extensions.length === 1, 'fay-laptop listed');
    const made = (await rpc(peer, 'connect', { extension_id: idOf('fay-laptop'), account: label, keep_state: keep(label) })).result;
    await ext.next((m) => m.name === 'session_opened' && m.sessionId === made.session_id);
    kept[label] = made.session_id as string;
    await rpc(peer, 'disconnect');
  }
  // b's seed reads the states (their owners are opaque; each is daemon a's part, `k.a.<owner>`, the only key of it
  // NATS lets a write). It cannot write a's part; under its own key it points key A's state at key B's session, its
  // proof kept, and copies a's part of key B's state, proof and all, as b's part of key A's.
  const router = await new Kvm(await asDaemonB()).open('browsermcp_router');
  const entries = new Map<string, Record<string, unknown>>();
  for await (const key of await router.keys('k.*.*')) entries.set(key, (await router.get(key))!.json<Record<string, unknown>>());
  const [keyOfA, stateOfA] = [...entries].find(([, state]) => state.sessionId === kept['key-A'])!;
  const [, stateOfB] = [...entries].find(([, state]) => state.sessionId === kept['key-B'])!;
  expect(keyOfA).toMatch(/^k\.a\./);
  expect(stateOfA.proof).toEqual(expect.any(String));
  await expect(router.put(keyOfA, JSON.stringify({ ...stateOfA, sessionId: kept['key-B'] }))).rejects.toThrow(/Permissions Violation for Publish/);
  await expect(router.delete(keyOfA)).rejects.toThrow(/Permissions Violation for Publish/);
  const partOfB = keyOfA.replace(/^k\.a\./, 'k.b.');
  for (const forged of [
    { ...stateOfA, sessionId: kept['key-B'] },
    { ...stateOfB, owner: stateOfA.owner },
    { ...stateOfA, made: Date.now() + 1 },
  ]) {
    await router.put(partOfB, JSON.stringify(forged));
    // Key A takes up its state: not key B's session (its cookies and tabs); a state of its own instead.
    const again = await client(A, 'fay');
    const taken = (await rpc(again, 'connect', { extension_id: idOf('fay-laptop'), account: 'key-A', keep_state: keep('key-A') })).result;
    expect(taken.session_id).not.toBe(kept['key-B']);
    await rpc(again, 'disconnect');
  }
  await until(() => logsOfA.some((line) => line.includes('kept browser state whose proof did not hold')), 'a says why');
  await router.delete(partOfB);
  // Even a state a daemon itself pointed at key B's session (proven: a bug, or a daemon holding the secret) hands
  // nothing over: a state's session must be of the taker's account, which its record's sealed part says.
  const store = daemons[A]!.cluster!.store;
  const ownerOfA = fromToken(keyOfA.split('.')[2]!);
  const current = (await store.getState(ownerOfA))!;
  await store.updateState(ownerOfA, current.handle, (state) => ({ ...state, sessionId: kept['key-B']! }));
  const third = await client(A, 'fay');
  const taken = (await rpc(third, 'connect', { extension_id: idOf('fay-laptop'), account: 'key-A', keep_state: keep('key-A') })).result;
  expect(taken.session_id).not.toBe(kept['key-B']);
  expect(logsOfA.some((line) => line.includes("names another account's session"))).toBe(true);
  await rpc(third, 'disconnect');
  // Key B's own state is still key B's.
  const ofB = await client(A, 'fay');
  expect((await rpc(ofB, 'connect', { extension_id: idOf('fay-laptop'), account: 'key-B', keep_state: keep('key-B') })).result).toMatchObject({
    session_id: kept['key-B'],
    resumed: true,
  });
});
