import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { signToken } from '../../src/index';
import { startCli, type RunningCli } from '../helpers/cli';
import { alive, processTree, tempDir } from '../helpers/local';
import { startSecureNats } from '../helpers/secure-nats';
import { connectPeer, hello, rpc, type Peer, answerCommand, idOf } from '../helpers/ws-peer';

// Daemons as the CLI runs them, in their own processes, so that one can die by SIGKILL as a crashed machine would.
const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
let nats: Awaited<ReturnType<typeof startSecureNats>>;
let fixtures: FixtureServer;
let secretFile: string;
const running: RunningCli[] = [];
const peers: Peer[] = [];

beforeAll(async () => {
  nats = await startSecureNats(['fa', 'fb', 'ga', 'gb', 'gc', 'ha', 'hb', 'ka', 'kb', 'la', 'lb']);
  fixtures = await startFixtureServer();
  secretFile = join(tempDir('cluster-secret'), 'secret');
  writeFileSync(secretFile, SECRET);
});

afterAll(async () => {
  for (const peer of peers.splice(0)) peer.ws.terminate();
  for (const daemon of running) if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
  await fixtures.close();
  await nats.close();
});

/** A daemon of the cluster; two a test needs start side by side (each start is mostly Node loading the CLI). */
async function daemon(instanceId: string, ...more: string[]): Promise<RunningCli> {
  const started = await startCli([
    '--nats',
    nats.nats.url,
    '--nats-nkey-seed-file',
    nats.seedFile(instanceId),
    '--instance-id',
    instanceId,
    '--auth-secret-file',
    secretFile,
    '--grace-period',
    '60',
    '--command-timeout',
    '30',
    ...more,
  ]);
  running.push(started);
  return started;
}

function kill(daemon: RunningCli): Promise<unknown> {
  const exited = new Promise((resolve) => daemon.child.once('exit', resolve));
  daemon.child.kill('SIGKILL');
  return exited;
}

const wsUrl = (daemon: RunningCli, path: string) => `${daemon.address.replace('http', 'ws')}${path}`;

const call = rpc;

async function client(at: RunningCli, user: string): Promise<Peer> {
  const peer = await connectPeer(wsUrl(at, '/mcp'), { origin: undefined });
  peers.push(peer);
  await call(peer, 'mcp_handshake', { accessToken: await signToken({ userId: user, secret: SECRET }) });
  return peer;
}

/** A scripted extension of `user` that connects to `at` as `browserId`, reporting `tabs` it holds for sessions. */
async function extension(at: RunningCli, user: string, browserId: string, tabs: Array<{ tabId: string; sessionId: string }> = []): Promise<Peer> {
  const peer = await connectPeer(wsUrl(at, '/extension'));
  peers.push(peer);
  const auth = await peer.next();
  peer.send({ jsonrpc: '2.0', id: auth.id, result: { name: `${user}'s Chrome`, accessToken: await signToken({ userId: user, secret: SECRET }) } });
  await peer.next((m) => m.method === 'authenticated');
  peer.send(hello(browserId, tabs));
  return peer;
}

/** Polls list_extensions until `browserId` is listed as connected on `instance`. */
async function until(peer: Peer, browserId: string, instance: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { result } = await call(peer, 'list_extensions');
    if (result.extensions.some((e: { id: string; connected: boolean; instance: string }) => e.id === browserId && e.connected && e.instance === instance))
      return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${browserId} was never listed on ${instance}`);
}

const answer = (ext: Peer, command: { wireId: string; sessionId: string; name: string }, text: string) => answerCommand(ext, command, text, '5');

it('drives the launched browser of another instance, and leaves no Chromium when that instance is killed', async () => {
  const [a, b] = await Promise.all([daemon('fa', '--no-local'), daemon('fb')]);
  const agent = await client(a, 'gina');
  await until(agent, 'local-fb', 'fb');
  expect((await call(agent, 'connect', { extension_id: 'local-fb' })).result).toMatchObject({ extension_id: 'local-fb' });
  const navigated = await call(agent, 'browser_navigate', { url: fixtures.url('/item/7') });
  expect(JSON.stringify(navigated.result)).toContain('Item 7');
  const browserProcesses = processTree(b.child.pid!).filter((pid) => pid !== b.child.pid);
  expect(browserProcesses.length).toBeGreaterThan(0);

  await kill(b);
  const failed = await call(agent, 'browser_snapshot', {});
  expect(failed.error).toMatchObject({ message: expect.stringContaining('local-fb is unavailable: the daemon instance fb that held it is gone') });
  // Chromium goes with the daemon that launched it, even on SIGKILL.
  for (let i = 0; i < 100 && browserProcesses.some(alive); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(browserProcesses.filter(alive)).toEqual([]);

  // A daemon restarted under the id of the one that died starts (its old entry answers nothing); a second live
  // daemon under a live one's id is refused.
  await Promise.all([
    daemon('fb', '--no-local').then(kill),
    expect(daemon('fa', '--no-local')).rejects.toThrow('instance id "fa" is already in use in this cluster'),
  ]);
  await kill(a);
});

it('fails calls to a killed instance fast, then goes on when the browser reconnects to another instance', async () => {
  // One after the other: three at once measured slower here, not faster.
  const a = await daemon('ga', '--no-local');
  const b = await daemon('gb', '--no-local');
  const c = await daemon('gc', '--no-local');
  const ext = await extension(b, 'hana', idOf('hana-laptop'));
  const agent = await client(a, 'hana');
  await until(agent, idOf('hana-laptop'), 'gb');
  await call(agent, 'connect', { extension_id: idOf('hana-laptop') });
  const opened = await ext.next((m) => m.name === 'session_opened');
  const first = call(agent, 'browser_navigate', { url: 'https://example.com' });
  answer(ext, await ext.next((m) => m.type === 'command'), 'navigated on b');
  expect((await first).result).toMatchObject({ content: [{ text: 'navigated on b' }] });

  // A call in flight when its browser's instance dies fails with "unavailable" (found by a ping within a
  // heartbeat), not with a timeout after the 30 s command timeout.
  const inFlight = call(agent, 'browser_snapshot', {});
  await ext.next((m) => m.type === 'command');
  await kill(b);
  expect((await inFlight).error).toMatchObject({ message: expect.stringContaining(`${idOf('hana-laptop')} is unavailable`) });
  // And the next one at once (NATS: no responders).
  expect((await call(agent, 'browser_snapshot', {})).error).toMatchObject({ message: expect.stringContaining('is unavailable') });

  // The browser comes back through another instance within its grace period: same session, same tab.
  const back = await extension(c, 'hana', idOf('hana-laptop'), [{ tabId: '5', sessionId: opened.sessionId }]);
  expect(await back.next((m) => m.name === 'session_opened')).toMatchObject({ sessionId: opened.sessionId });
  await until(agent, idOf('hana-laptop'), 'gc');
  const after = call(agent, 'browser_snapshot', {});
  const command = await back.next((m) => m.type === 'command');
  expect(command.sessionId).toBe(opened.sessionId);
  answer(back, command, 'snapshot on c');
  expect((await after).result).toMatchObject({ content: [{ text: 'snapshot on c' }] });
  await Promise.all([kill(a), kill(c)]);
});

it('answers with a clear error while NATS is down and carries on with the same session once it is back', async () => {
  const [a, b] = await Promise.all([daemon('ha', '--no-local'), daemon('hb', '--no-local')]);
  const ext = await extension(b, 'ines', idOf('ines-laptop'));
  const agent = await client(a, 'ines');
  await until(agent, idOf('ines-laptop'), 'hb');
  await call(agent, 'connect', { extension_id: idOf('ines-laptop') });
  const opened = await ext.next((m) => m.name === 'session_opened');

  await nats.nats.stop();
  const down = await call(agent, 'browser_snapshot', {});
  expect(down.error).toMatchObject({ message: expect.stringContaining('the cluster store (NATS) cannot be reached') });

  // The instances come back on NATS one after the other: b is held (SIGSTOP) so that a is back first. b's silence
  // then is NATS's doing, not b's death: the answer says b has not rejoined yet, never that it is gone.
  b.child.kill('SIGSTOP');
  await nats.nats.restart();
  await vi.waitFor(() => expect(a.lines.some((line) => line.msg === 'connected to NATS again')).toBe(true), { timeout: 10_000, interval: 50 });
  const early = await call(agent, 'browser_snapshot', {});
  expect(early.error).toMatchObject({ message: expect.stringContaining(`${idOf('ines-laptop')} is not reachable yet: NATS came back`) });
  expect(early.error.message).toContain('the daemon instance hb that holds it has not rejoined the cluster');
  b.child.kill('SIGCONT');

  // Calls fail clearly until b is back on NATS; then one reaches the browser, in the same session.
  const reached = ext.next((m) => m.type === 'command');
  let result: unknown;
  for (let i = 0; i < 100 && result === undefined; i++) {
    const pending = call(agent, 'browser_snapshot', {});
    if ((await Promise.race([reached.then(() => 'browser'), pending.then(() => 'answer')])) === 'browser') {
      const command = await reached;
      expect(command.sessionId).toBe(opened.sessionId);
      answer(ext, command, 'after NATS came back');
      result = (await pending).result;
    } else {
      expect((await pending).error).toMatchObject({ message: expect.stringContaining('NATS came back') });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  expect(result).toMatchObject({ content: [{ text: 'after NATS came back' }] });
  await Promise.all([kill(a), kill(b)]);
});

// The last two wait for a killed instance's directory entries to expire (a TTL the CLI does not set) and for a sweep
// or two after: they run side by side so the waits overlap. Their instances, users and browsers are their own.
it.concurrent('closes the sessions a killed instance served once no client took them up within the grace period', async ({ expect }) => {
  const [a, b] = await Promise.all([daemon('ka', '--no-local', '--grace-period', '1'), daemon('kb', '--no-local', '--grace-period', '1')]);
  const ext = await extension(b, 'jude', idOf('jude-laptop'));
  const agent = await client(a, 'jude');
  await until(agent, idOf('jude-laptop'), 'kb');
  const { session_id: sessionId } = (await call(agent, 'connect', { extension_id: idOf('jude-laptop'), resumable: true })).result;
  await ext.next((m) => m.name === 'session_opened');
  await kill(a);
  // Its entry expires (bucket TTL), then the grace period passes, then b closes the session's tabs.
  expect(await ext.next((m) => m.name === 'session_closed')).toMatchObject({ sessionId });
  await kill(b);
}, 30_000);

it.concurrent('lets a kept browser state go once the instance whose connection held it died and its time ran out', async ({ expect }) => {
  const [a, b] = await Promise.all([daemon('la', '--no-local'), daemon('lb', '--no-local')]);
  const ext = await extension(b, 'lena', idOf('lena-laptop'));
  const agent = await client(a, 'lena');
  await until(agent, idOf('lena-laptop'), 'lb');
  const { session_id: sessionId } = (await call(agent, 'connect', { extension_id: idOf('lena-laptop'), keep_state: { owner: 'key', ms: 500 } })).result;
  await ext.next((m) => m.name === 'session_opened');
  await kill(a);
  // a never releases it: b's sweep drops a's hold once a's entry expires, then the state waits 0.5 s and closes.
  expect(await ext.next((m) => m.name === 'session_closed')).toMatchObject({ sessionId });
  await kill(b);
}, 30_000);
