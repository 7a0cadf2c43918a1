import { readFileSync } from 'node:fs';
import { Kvm } from '@nats-io/kv';
import { connect, nkeyAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signToken, type RunningDaemon } from '../../src/index';
import { token } from '../../src/cluster/names';
import { startSecureNats } from '../helpers/secure-nats';
import { authenticatedExtension, answerCommand, connectPeer, helloAs, rpc, type Peer } from '../helpers/ws-peer';

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
  const first = await authenticatedExtension(daemons[A]!.app, ws(A), 'jo', 'jo-laptop', SECRET);
  peers.push(first);
  const { sessionId, listed, call } = await sessionOn(C, 'jo', first, 'jo-laptop');
  expect(await call(first, 'on a')).toBe('on a');
  (first.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  const second = await authenticatedExtension(daemons[B]!.app, ws(B), 'jo', 'jo-laptop', SECRET);
  peers.push(second);
  await second.next((m) => m.name === 'session_opened' && m.sessionId === sessionId);
  await until(async () => (await listed()).some((b) => b.instance === 'b' && b.connected), 'c lists her browser on b');
  expect(await call(second, 'on b')).toBe('on b');
});

it("does not hand a browser connected to one instance to another's claim: its sessions' commands never reach the claimant", async () => {
  const ext = await authenticatedExtension(daemons[A]!.app, ws(A), 'ivy', 'ivy-laptop', SECRET);
  peers.push(ext);
  const { client, listed, call: callOn } = await sessionOn(C, 'ivy', ext, 'ivy-laptop');
  const call = (text: string) => callOn(ext, text);
  expect(await call('before')).toBe('before');

  // b's seed listens on b's subject (every question and command sent to b) and writes, under b's name, that her
  // browser is connected to b: a later claim than a's, as when a browser moves.
  const seed = new TextEncoder().encode(readFileSync(nats.seedFile('b'), 'utf8').trim());
  const nc = await connect({ servers: nats.nats.url, authenticator: nkeyAuthenticator(seed), inboxPrefix: '_INBOX.browsermcp.b' });
  connections.push(nc);
  const heard: Array<{ subject: string; data: string }> = [];
  nc.subscribe('browsermcp.instance.b.from.*', { callback: (_error, msg) => void heard.push({ subject: msg.subject, data: msg.string() }) });
  // (a asks every instance whether a client there drives her session, which names it: a question, not a command)
  const commandsHeard = () => heard.filter((h) => /"op":"(send|open)"/.test(h.data));
  const directory = await new Kvm(nc).open('browsermcp_browsers');
  const key = `b.b.${token('ivy-laptop')}`;
  const claim = { id: 'ivy-laptop', instanceId: 'b', kind: 'extension', name: 'Ivy laptop', userId: 'ivy', connected: true };
  await directory.put(key, JSON.stringify(claim));

  // Once c has learned of the claim, it asks b whether her browser is connected to it (daemon b says no), and a,
  // which says yes: a keeps it. (Believing the later claim, c would list her browser on b and send her calls there.)
  const askedByC = () => heard.some((h) => h.subject === 'browsermcp.instance.b.from.c' && h.data.includes('"holding"'));
  await until(async () => askedByC() || (await listed()).some((b) => b.instance === 'b'), 'c learns of the claim');
  await until(async () => (await listed()).some((b) => b.instance === 'a' && b.connected), 'c settles on a');
  expect(await call('after the claim')).toBe('after the claim');
  expect(await call('and again')).toBe('and again');
  expect(commandsHeard()).toEqual([]);

  // With daemon b gone, the seed answers for b and insists: two instances say they hold her browser, so c sends
  // neither its commands (her calls from c are refused, and c says why) — none reaches the liar.
  await daemons[B]!.close();
  nc.subscribe('browsermcp.instance.b.from.*', {
    callback: (_error, msg) => {
      if (msg.string().includes('"holding"')) msg.respond(JSON.stringify({ ok: true, holding: true }));
    },
  });
  await directory.put(key, JSON.stringify(claim));
  await until(() => logsOfC.some((line) => line.includes('none gets its commands') && line.includes('ivy-laptop')), 'c says the browser is contested');
  const refused = await rpc(client, 'browser_snapshot', {});
  expect(refused.error?.message ?? refused.result?.content?.[0]?.text).toMatch(/not connected/i);
  expect(commandsHeard()).toEqual([]);
  // While no instance holds it, another user's extension still cannot say hello with her browser's id.
  const impostor = await helloAs(ws(C), 'mallory', 'ivy-laptop', SECRET);
  peers.push(impostor);
  expect(await impostor.closed).toMatchObject({ reason: expect.stringContaining('belongs to another user') });

  // Once the claim is gone, her calls from c run on her browser again.
  await directory.delete(key);
  await until(async () => (await listed()).some((b) => b.instance === 'a' && b.connected), 'her browser back on a');
  expect(await call('back')).toBe('back');
  expect(commandsHeard()).toEqual([]);
});
