import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Kvm } from '@nats-io/kv';
import { connect, nkeyAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hs256Verifier, publicKeyVerifier, signToken, startDaemon, type RunningDaemon } from '../../src/index';
import { token } from '../../src/cluster/names';
import { USER_PROOF_PURPOSE, UserProofs } from '../../src/cluster/user-proofs';
import { SEALED_RECORDS_PURPOSE, SealedRecords } from '../../src/cluster/sealed-records';
import { openedEntry, storedEntry } from '../../src/cluster/directory-entries';
import type { BrowserEntry } from '@browsermcp/protocol';
import { startSecureNats } from '../helpers/secure-nats';
import { authenticatedExtension, answerCommand, connectPeer, helloAs, rpc, type Peer, idOf, holdFor } from '../helpers/ws-peer';

// A browser's place in the cluster's directory, against a client holding one daemon's credentials (b's seed): it may
// write entries under b's name only, but for any browser id. Ivy's browser is on a, her client on c.
const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
let nats: Awaited<ReturnType<typeof startSecureNats>>;
const daemons: RunningDaemon[] = [];
const peers: Peer[] = [];
const connections: NatsConnection[] = [];
const logsOfC: string[] = [];
const [A, B, C] = [0, 1, 2];

beforeAll(async () => {
  nats = await startSecureNats(['a', 'b', 'c']);
  daemons.push(await nats.daemon('a', SECRET), await nats.daemon('b', SECRET), await nats.daemon('c', SECRET, (line) => logsOfC.push(line)));
});

afterAll(async () => {
  for (const peer of peers.splice(0)) peer.ws.terminate();
  for (const nc of connections.splice(0)) await nc.close();
  for (const daemon of daemons) await daemon.close();
  await nats.close();
});

const ws = (i: number) => daemons[i]!.address.replace('http', 'ws');

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A client of `user` on daemon `at` with a session on `browserId`, and a call that its extension answers. */
async function sessionOn(at: number, user: string, ext: Peer, browserId: string) {
  const client = await connectPeer(`${ws(at)}/mcp`, { origin: undefined });
  peers.push(client);
  await rpc(client, 'mcp_handshake', { accessToken: await signToken({ userId: user, secret: SECRET }) });
  const listed = async () => (await rpc(client, 'list_extensions')).result.extensions as Array<{ id: string; instance: string; connected: boolean }>;
  await until(async () => (await listed()).some((b) => b.id === browserId), `${browserId} listed`);
  const { session_id: sessionId } = (await rpc(client, 'connect', { extension_id: browserId, resumable: true })).result;
  await ext.next((m) => m.name === 'session_opened' && m.sessionId === sessionId);
  const call = async (by: Peer, text: string) => {
    const running = rpc(client, 'browser_snapshot', {});
    answerCommand(by, await by.next((m) => m.type === 'command' && m.sessionId === sessionId), text, '1');
    return (await running).result.content[0].text as string;
  };
  return { client, sessionId, listed, call };
}

it('moves a browser whose old connection went silent to the instance it connected to, within a ping', async () => {
  // Jo's laptop slept on a's socket and woke up on b: a's socket still looks open (no close came), but it no longer
  // answers. c, which drives her session, asks both: a's ping goes unanswered, so b holds her browser at once.
  const first = await authenticatedExtension(daemons[A]!.app, ws(A), 'jo', idOf('jo-laptop'), SECRET);
  peers.push(first);
  const { sessionId, listed, call } = await sessionOn(C, 'jo', first, idOf('jo-laptop'));
  expect(await call(first, 'on a')).toBe('on a');
  (first.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  const second = await authenticatedExtension(daemons[B]!.app, ws(B), 'jo', idOf('jo-laptop'), SECRET);
  peers.push(second);
  await second.next((m) => m.name === 'session_opened' && m.sessionId === sessionId);
  await until(async () => (await listed()).some((b) => b.instance === 'b' && b.connected), 'c lists her browser on b');
  expect(await call(second, 'on b')).toBe('on b');
});

it("does not hand a browser to another's claim without the browser's own proof: its sessions' commands never reach the claimant", async () => {
  const ivy = idOf('ivy-laptop');
  // b's seed listens on b's subject (every question and command sent to b) and reads and writes the directory under
  // b's name.
  const seed = new TextEncoder().encode(readFileSync(nats.seedFile('b'), 'utf8').trim());
  const nc = await connect({ servers: nats.nats.url, authenticator: nkeyAuthenticator(seed), inboxPrefix: '_INBOX.browsermcp.b' });
  connections.push(nc);
  const heard: Array<{ subject: string; data: string }> = [];
  nc.subscribe('browsermcp.instance.b.from.*', { callback: (_error, msg) => void heard.push({ subject: msg.subject, data: msg.string() }) });
  // (a asks every instance whether a client there drives her session, which names it: a question, not a command)
  const commandsHeard = () => heard.filter((h) => /"op":"(send|open)"/.test(h.data));
  // Asked since the claims were written: her browser's real move from b to a may have had c ask b before (b's entry
  // could still say connected when a's came).
  let claimsFrom = 0;
  const askedByC = () => heard.slice(claimsFrom).some((h) => h.subject === 'browsermcp.instance.b.from.c' && h.data.includes('"holding"'));
  const directory = await new Kvm(nc).open('browsermcp_browsers');
  const key = `b.b.${token(ivy)}`;
  // c reads the directory's writes in order: once it says it ignored an unproven entry written after the seed's
  // last write, it has read that write too.
  let markers = 0;
  const readByC = async () => {
    const marker = idOf(`marker-${++markers}`);
    await directory.put(`b.b.${token(marker)}`, JSON.stringify({ id: marker, instanceId: 'b', kind: 'extension', name: 'x', userId: 'x', connected: true }));
    await until(() => logsOfC.some((line) => line.includes('no proof from the browser itself') && line.includes(marker)), 'c reads the write');
  };

  // Her browser was on b a minute ago: b's entry then carried her browser's proof that b held it, which the seed keeps.
  const onB = await authenticatedExtension(daemons[B]!.app, ws(B), 'ivy', ivy, SECRET);
  // (Sealed in the store with her user: read here as a daemon holding the token secret reads it.)
  const sealer = new SealedRecords(hs256Verifier(SECRET).derivedKey!(SEALED_RECORDS_PURPOSE));
  const opened = async (at: string) => openedEntry(sealer, (await directory.get(at))?.json<BrowserEntry>());
  await until(async () => (await opened(key))?.hold !== undefined, "b's entry with her proof");
  const proven = (await directory.get(key))!.json<Record<string, unknown>>();
  await onB.close();
  const ext = await authenticatedExtension(daemons[A]!.app, ws(A), 'ivy', ivy, SECRET);
  peers.push(ext);
  const { client, listed, call: callOn } = await sessionOn(C, 'ivy', ext, ivy);
  const call = (text: string) => callOn(ext, text);
  await until(async () => (await listed()).some((b) => b.instance === 'a' && b.connected), 'c lists her browser on a');
  expect(await call('before')).toBe('before');

  // Written under b's name, later than a's: that her browser is connected to b, with no proof, then with a's proof
  // copied (it says a holds it). c does not believe either (it says so once), nor asks b: her calls run on a.
  const claim = { id: ivy, instanceId: 'b', kind: 'extension', name: 'Ivy laptop', userId: 'ivy', connected: true };
  // Daemon b's own entry says her browser left, and c has read it: what c asks from here is the seed's doing.
  await until(async () => (await opened(key))?.connected === false, "b's entry says her browser left");
  await readByC();
  claimsFrom = heard.length;
  await directory.put(key, JSON.stringify(claim));
  await until(() => logsOfC.some((line) => line.includes('no proof from the browser itself') && line.includes(ivy)), 'c ignores the claim');
  const onA = (await opened(`b.a.${token(ivy)}`))!;
  await directory.put(key, JSON.stringify({ ...claim, hold: onA.hold }));
  await readByC();
  // Nor the proof her browser really gave b with another user named (it signs the user too), nor an entry saying
  // her browser, or a's own launched one, is b's own launched browser (those need no proof, under their own id only).
  await directory.put(key, JSON.stringify({ ...proven, connected: true, userId: 'mallory' }));
  await directory.put(key, JSON.stringify({ ...claim, kind: 'local', userId: null }));
  await directory.put(
    `b.b.${token('local-a')}`,
    JSON.stringify({ id: 'local-a', instanceId: 'b', kind: 'local', name: 'b says', userId: null, connected: true }),
  );
  await readByC();
  await directory.delete(`b.b.${token('local-a')}`);
  expect(await call('after the claims')).toBe('after the claims');
  expect((await listed()).filter((b) => b.id === ivy)).toEqual([expect.objectContaining({ instance: 'a', connected: true })]);
  expect(askedByC()).toBe(false);

  // With her proof that b held it (a minute old), the claim is believed as far as the proof goes: c asks b whether her
  // browser is connected to it (daemon b says no) and a, which says yes: a keeps it.
  await directory.put(key, JSON.stringify({ ...proven, connected: true }));
  await until(askedByC, 'c asks b');
  await until(async () => (await listed()).some((b) => b.instance === 'a' && b.connected), 'c settles on a');
  expect(await call('after the proven claim')).toBe('after the proven claim');
  expect(commandsHeard()).toEqual([]);

  // With daemon b gone, the seed answers for b and insists: two instances say they hold her browser, so c sends
  // neither its commands (her calls from c are refused, and c says why) — none reaches the liar.
  await daemons[B]!.close();
  nc.subscribe('browsermcp.instance.b.from.*', {
    callback: (_error, msg) => {
      if (msg.string().includes('"holding"')) msg.respond(JSON.stringify({ ok: true, holding: true }));
    },
  });
  await directory.put(key, JSON.stringify({ ...proven, connected: true }));
  await until(() => logsOfC.some((line) => line.includes('none gets its commands') && line.includes(ivy)), 'c says the browser is contested');
  const refused = await rpc(client, 'browser_snapshot', {});
  expect(refused.error?.message ?? refused.result?.content?.[0]?.text).toMatch(/not connected/i);
  expect(commandsHeard()).toEqual([]);
  // While no instance holds it, another user's extension still cannot say hello with her browser's id.
  const impostor = await helloAs(ws(C), 'mallory', ivy, SECRET);
  peers.push(impostor);
  expect(await impostor.closed).toMatchObject({ reason: expect.stringContaining('belongs to another user') });

  // Once the claim is gone, her calls from c run on her browser again.
  await directory.delete(key);
  await until(async () => (await listed()).some((b) => b.instance === 'a' && b.connected), 'her browser back on a');
  expect(await call('back')).toBe('back');

  // Away from every instance (her extension dropped from a), the newest proof holds her browser: a's, not the older
  // one the seed writes again under b's name, later in the directory (the later write held it before proofs).
  await ext.close();
  await until(async () => (await listed()).some((b) => b.id === ivy && b.instance === 'a' && !b.connected), 'c lists her browser away on a');
  await directory.put(key, JSON.stringify({ ...proven, connected: false }));
  await readByC();
  expect((await listed()).filter((b) => b.id === ivy)).toEqual([expect.objectContaining({ instance: 'a', connected: false })]);
  // Nor by saying it is connected to b, alone, with a proof older than a's (her browser on b ten seconds before).
  await directory.put(key, JSON.stringify({ ...claim, hold: holdFor(ivy, 'b', 'ivy', Date.now() - 10_000) }));
  await readByC();
  expect((await listed()).filter((b) => b.id === ivy)).toEqual([expect.objectContaining({ instance: 'a', connected: false })]);

  // Nor once a's entry is gone (a stopped): a proof older than the newest c has seen, by more than clocks differ,
  // holds nothing (her browser gave b one 90 s before a's).
  await daemons[A]!.close();
  await directory.put(key, JSON.stringify({ ...claim, connected: false, hold: holdFor(ivy, 'b', 'ivy', Date.now() - 90_000) }));
  await readByC();
  expect((await listed()).filter((b) => b.id === ivy && b.instance === 'b')).toEqual([]);
  expect(commandsHeard()).toEqual([]);
});

it("lists for a user only the browsers whose holder proved that user: a daemon's seed cannot add one of its own making", async () => {
  const seed = new TextEncoder().encode(readFileSync(nats.seedFile('b'), 'utf8').trim());
  const nc = await connect({ servers: nats.nats.url, authenticator: nkeyAuthenticator(seed), inboxPrefix: '_INBOX.browsermcp.b' });
  connections.push(nc);
  const directory = await new Kvm(nc).open('browsermcp_browsers');
  // A browser key b's seed made, its proof that b holds it, signed for kim: all a browser's own word can say.
  const made = idOf('made-by-b');
  const entry = { id: made, instanceId: 'b', kind: 'extension' as const, name: "Kim's laptop", userId: 'kim', connected: true };
  await directory.put(`b.b.${token(made)}`, JSON.stringify({ ...entry, hold: holdFor(made, 'b', 'kim') }));
  await until(() => logsOfC.some((line) => line.includes('no proof from the browser itself, or of its user') && line.includes(made)), 'c ignores it');
  const kim = await connectPeer(`${ws(C)}/mcp`, { origin: undefined });
  peers.push(kim);
  await rpc(kim, 'mcp_handshake', { accessToken: await signToken({ userId: 'kim', secret: SECRET }) });
  const listed = async () => ((await rpc(kim, 'list_extensions')).result.extensions as Array<{ id: string }>).map((b) => b.id);
  expect(await listed()).not.toContain(made);
  // Nor with the proof of her user that a daemon holding the token secret makes, its user and name in clear: where
  // the daemons seal, a daemon seals them.
  const derived = hs256Verifier(SECRET).derivedKey!;
  const proofs = new UserProofs(derived(USER_PROOF_PURPOSE));
  const clear = idOf('made-by-b-in-clear');
  const clearEntry = { ...entry, id: clear };
  await directory.put(`b.b.${token(clear)}`, JSON.stringify({ ...clearEntry, hold: holdFor(clear, 'b', 'kim'), userProof: proofs.browser(clearEntry) }));
  await until(() => logsOfC.some((line) => line.includes('no proof from the browser itself, or of its user') && line.includes(clear)), 'c ignores it too');
  expect(await listed()).not.toContain(clear);
  await directory.delete(`b.b.${token(clear)}`);
  // What would list it: the proof of her user, her user and name sealed, both with keys derived from the token secret
  // (so that secret, not a NATS seed, is what lets a daemon speak for a user).
  const sealer = new SealedRecords(derived(SEALED_RECORDS_PURPOSE));
  await directory.put(
    `b.b.${token(made)}`,
    JSON.stringify(storedEntry(sealer, { ...entry, hold: holdFor(made, 'b', 'kim'), userProof: proofs.browser(entry) })),
  );
  await until(async () => (await listed()).includes(made), 'c lists the proven entry');
  await directory.delete(`b.b.${token(made)}`);

  // With a public key for tokens, the daemons share no secret to prove users with: a cluster daemon says so at start.
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const said: string[] = [];
  daemons.push(
    await startDaemon({
      logger: { level: 'warn', stream: { write: (line: string) => void said.push(line) } },
      host: '127.0.0.1',
      port: 0,
      local: null,
      verifier: publicKeyVerifier(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
      cluster: { ...nats.cluster('b'), heartbeatMs: 250 },
    }),
  );
  expect(said.join('')).toContain("a session record or a browser entry names its user on its daemon's word");
});
