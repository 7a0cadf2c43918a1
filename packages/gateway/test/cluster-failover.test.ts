import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { hs256Verifier, signToken, startDaemon, writeNatsClusterFiles, type NatsClusterFiles, type RunningDaemon } from '@browsermcp/daemon';
import { NatsServer, startFixtureServer, testChromePath, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keptStateLabel } from '../src/backends/remote.js';
import { connectClient, modernClient, refIn, RoundRobin, startGateway, text } from './helpers.js';

// A gateway with two daemons of a cluster in --daemon-url. Its entry daemon runs as its own process and dies by
// SIGKILL; the browser is held by a third daemon. The MCP session and its page must survive the move.
const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
const DAEMON_CLI = join(dirname(createRequire(import.meta.url).resolve('@browsermcp/daemon/package.json')), 'dist', 'cli.js');
let nats: NatsServer;
let natsFiles: NatsClusterFiles;
let server: FixtureServer;
let holder: RunningDaemon;
let spare: RunningDaemon;
let entry: ChildProcess;
let entryUrl: string;

function cluster(instanceId: string) {
  return { nats: nats.url, instanceId, heartbeatMs: 500, credentials: { nkeySeed: readFileSync(natsFiles.seeds[instanceId]!, 'utf8') } };
}

/** The daemon CLI in its own process; resolves with its address once it listens. */
function spawnDaemon(args: string[]): Promise<{ child: ChildProcess; address: string }> {
  const child = spawn(process.execPath, [DAEMON_CLI, '--port', '0', ...args]);
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (data: Buffer) => {
      buffer += data.toString();
      for (const line of buffer.split('\n').slice(0, -1)) {
        const entry = JSON.parse(line) as { msg?: string; address?: string };
        if (entry.msg === 'browsermcp daemon listening') resolve({ child, address: entry.address! });
      }
      buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
    });
    child.once('exit', (code) => reject(new Error(`the daemon exited early (${code})`)));
  });
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bmcp-gw-cluster-'));
  // NATS as `browsermcp-daemon nats-config` sets it up: one nkey user per daemon, least-privilege permissions.
  natsFiles = writeNatsClusterFiles({ dir: join(dir, 'nats'), instances: ['holder', 'spare', 'entry'] });
  [nats, server] = await Promise.all([NatsServer.start({ config: readFileSync(natsFiles.config, 'utf8') }), startFixtureServer()]);
  writeFileSync(join(dir, 'secret'), SECRET);
  const verifier = hs256Verifier(SECRET);
  holder = await startDaemon({
    host: '127.0.0.1',
    port: 0,
    verifier,
    local: { outputDir: join(dir, 'out'), headless: true, executablePath: testChromePath() },
    cluster: cluster('holder'),
  });
  spare = await startDaemon({ host: '127.0.0.1', port: 0, verifier, local: null, cluster: cluster('spare') });
  const spawned = await spawnDaemon([
    '--no-local',
    '--auth-secret-file',
    join(dir, 'secret'),
    '--nats',
    nats.url,
    '--nats-nkey-seed-file',
    natsFiles.seeds.entry!,
    '--instance-id',
    'entry',
  ]);
  entry = spawned.child;
  entryUrl = `${spawned.address.replace('http', 'ws')}/mcp`;
});

afterAll(async () => {
  if (entry?.exitCode === null) entry.kill('SIGKILL');
  await spare?.close();
  await holder?.close();
  await server?.close();
  await nats?.close();
});

it('keeps the MCP session and its page when the entry daemon dies: the gateway moves to the next daemon', async () => {
  const token = await signToken({ userId: 'alice', secret: SECRET });
  const spareUrl = `${spare.address.replace('http', 'ws')}/mcp`;
  const gw = await startGateway(['--daemon-url', `${entryUrl},${spareUrl}`, '--daemon-token', token, '--daemon-browser', 'local-holder']);
  try {
    const client = await connectClient(gw);
    expect(text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }))).toContain('- Page Title: Fixture home');
    const snapshot = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
    expect(text(await client.callTool({ name: 'browser_click', arguments: { target: refIn(snapshot, 'button "Click me"') } }))).toContain(
      'button "Clicked 1 times"',
    );
    const [session] = await holder.cluster!.store.listSessions('local-holder');
    expect(session).toMatchObject({ servedBy: 'entry' });

    const exited = new Promise((resolve) => entry.once('exit', resolve));
    entry.kill('SIGKILL');
    await exited;
    // The page is where it was: same daemon session, now served by the spare daemon.
    const after = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
    expect(after).toContain('button "Clicked 1 times"');
    expect(await holder.cluster!.store.getSession(session!.sessionId)).toMatchObject({ servedBy: 'spare' });
    expect(await holder.cluster!.store.listSessions()).toHaveLength(1);
    await client.close();
  } finally {
    await gw.close();
  }
  // The gateway's goodbye closed the daemon session and its tab, across instances.
  await expect.poll(async () => (await holder.cluster!.store.listSessions()).length, { timeout: 10_000 }).toBe(0);
});

it('refuses a --daemon-url list with a URL that is not ws:// or wss://', async () => {
  await expect(startGateway(['--daemon-url', `${entryUrl},http://127.0.0.1:1/mcp`])).rejects.toThrow(
    '--daemon-url must be a ws:// or wss:// URL, got "http://127.0.0.1:1/mcp".',
  );
});

it('keeps a key’s browser state in the cluster: a session through another daemon finds it', async () => {
  const token = await signToken({ userId: 'alice', secret: SECRET });
  const ws = (d: RunningDaemon) => `${d.address.replace('http', 'ws')}/mcp`;
  const key = 'one-key-of-alice-0123456789abcdef';
  const flags = ['--daemon-token', token, '--daemon-browser', 'local-holder', '--keep-browser-state', '1', '--api-key', key];
  // Two gateways, each on a different daemon of the cluster, as two replicas behind a load balancer would be.
  const [viaSpare, viaHolder] = [await startGateway(['--daemon-url', ws(spare), ...flags]), await startGateway(['--daemon-url', ws(holder), ...flags])];
  try {
    const first = await connectClient(viaSpare);
    await first.callTool({ name: 'browser_navigate', arguments: { url: server.url('/item/4') } });
    await first.callTool({ name: 'browser_evaluate', arguments: { function: '() => { localStorage.setItem("who", "alice"); }' } });
    await first.close();
    await viaSpare.close(); // its session ends; the state stays in the cluster

    const second = await connectClient(viaHolder);
    const seen = text(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the page's own template literal, evaluated there
      await second.callTool({ name: 'browser_evaluate', arguments: { function: '() => `${location.pathname} ${localStorage.getItem("who")}`' } }),
    );
    expect(seen).toContain('/item/4 alice');
    const [state] = await holder.cluster!.store.listStates();
    expect(state).toMatchObject({ holders: [{ instance: 'holder' }], sessionId: expect.stringMatching(/^proxy-/) });
    // What NATS keeps names the owner by an HMAC under the daemons' secret: no hash of the key, nor the gateway's label.
    const keyHash = createHash('sha256').update(key).digest();
    for (const spelling of [keyHash.toString('hex'), keyHash.toString('base64url'), keptStateLabel(keyHash.toString('hex'))]) {
      expect(JSON.stringify(await holder.cluster!.store.listStates())).not.toContain(spelling.slice(0, 16));
    }
    await second.close();
  } finally {
    await viaHolder.close();
  }
});

it('serves MCP 2026-07-28 with a gateway on each instance behind a round-robin balancer: states and handles live in the cluster', async () => {
  const token = await signToken({ userId: 'bob', secret: SECRET });
  const ws = (d: RunningDaemon) => `${d.address.replace('http', 'ws')}/mcp`;
  const key = 'modern-key-of-bob-0123456789abcdef';
  const flags = ['--daemon-token', token, '--daemon-browser', 'local-holder', '--api-key', key];
  const gateways = [await startGateway(['--daemon-url', ws(spare), ...flags]), await startGateway(['--daemon-url', ws(holder), ...flags])];
  const balancer = await RoundRobin.start(gateways.map((g) => g.url));
  try {
    const client = await modernClient(balancer.url, key);
    const handle = /bs_[A-Za-z0-9_-]{32}/.exec(text(await client.callTool({ name: 'browser_state_open', arguments: {} })))![0];
    await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html'), browser: handle } });
    const snapshot = text(await client.callTool({ name: 'browser_snapshot', arguments: { browser: handle } }));
    const clicked = text(await client.callTool({ name: 'browser_click', arguments: { target: refIn(snapshot, 'button "Click me"'), browser: handle } }));
    expect(clicked).toContain('button "Clicked 1 times"');
    expect(new Set(balancer.served)).toEqual(new Set([0, 1]));
    // The handle's state is a record in NATS, found by either instance.
    expect((await holder.cluster!.store.listStates()).some((s) => s.name === handle)).toBe(true);
    expect(text(await client.callTool({ name: 'browser_state_list', arguments: {} }))).toContain(handle);
    expect(text(await client.callTool({ name: 'browser_state_close', arguments: { browser: handle } }))).toContain('Closed');
    expect((await holder.cluster!.store.listStates()).some((s) => s.name === handle)).toBe(false);
    await client.close();
  } finally {
    await balancer.close();
    await Promise.all(gateways.map((g) => g.close()));
  }
});
