import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  EXTENSION_ID,
  hs256Verifier,
  loadPairingSecret,
  signToken,
  startDaemon,
  writeNatsClusterFiles,
  type NatsClusterFiles,
  type RunningDaemon,
} from '@browsermcp/daemon';
import { RemoteBackend } from '@browsermcp/gateway';
import { NatsServer } from '@browsermcp/testkit';
import { benchBrowserKey } from './bench-browser-key.js';
import { closedLoop } from './router-bench.js';
import { percentile } from './stats.js';

export interface ClusterLevel {
  /** "same instance": the session's client and browser on one daemon; "crossing": on two, over NATS. */
  path: 'same instance' | 'crossing';
  sessions: number;
  commands: number;
  commandsPerSec: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface ClusterBenchResult {
  levels: ClusterLevel[];
  /** The daemon holding the browser killed (SIGKILL), the extension reconnects to another: kill → first good call. */
  browserFailoverMs: number;
  /** The gateway's daemon killed (SIGKILL): kill → first good call through the gateway's RemoteBackend. */
  gatewayFailoverMs: number;
  /** Calls that failed in between, in each case (they fail fast: "unavailable", "call again"). */
  failedDuring: { browser: number; gateway: number };
}

const DAEMON_CLI = join(dirname(createRequire(import.meta.url).resolve('@browsermcp/daemon/package.json')), 'dist', 'cli.js');
// The no-op extensions' keys: their ids are the keys' hashes, as the real extension's.
const BROWSER_KEY = benchBrowserKey();
const BROWSER = BROWSER_KEY.browserId;
const LOCAL_KEY = benchBrowserKey();
/** The cluster's daemons share one pairing secret, as daemons behind one address must: the extension pairs once. */
const PAIRING_FILE = join(mkdtempSync(join(tmpdir(), 'bmcp-bench-pairing-')), 'pairing-secret');
/**
 * And one token secret (`--auth-secret-file`), as SECURITY.md asks of a cluster: records are then proven, sealed and
 * checked where served and where run, and that is what is measured. The sessions and the browsers are one user's.
 */
const AUTH_SECRET = randomBytes(32).toString('base64url');
const AUTH_FILE = join(dirname(PAIRING_FILE), 'auth-secret');
writeFileSync(AUTH_FILE, AUTH_SECRET, { mode: 0o600 });
const USER = 'bench';

/** A daemon CLI of the cluster in its own process (so it can die by SIGKILL). */
function spawnDaemon(nats: string, files: NatsClusterFiles, instanceId: string): Promise<{ child: ChildProcess; address: string }> {
  const seed = files.seeds[instanceId]!;
  const args = [
    DAEMON_CLI,
    '--port',
    '0',
    '--no-local',
    '--nats',
    nats,
    '--nats-nkey-seed-file',
    seed,
    '--instance-id',
    instanceId,
    '--pairing-file',
    PAIRING_FILE,
    '--auth-secret-file',
    AUTH_FILE,
  ];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffer: string | undefined = '';
    // Read to the end: a daemon whose log pipe fills up would stall.
    child.stdout!.on('data', (data: Buffer) => {
      if (buffer === undefined) return;
      buffer += data.toString();
      const match = /"address":"(http:\/\/[^"]+)"/.exec(buffer);
      if (match) {
        buffer = undefined;
        resolve({ child, address: match[1]! });
      }
    });
    child.once('exit', (code) => reject(new Error(`daemon ${instanceId} exited (${code})`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return exited;
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Calls `call` in a loop until one succeeds; resolves with the time from `since` and how many failed first. */
async function firstSuccess(call: () => Promise<unknown>, since: number): Promise<{ ms: number; failed: number }> {
  let failed = 0;
  for (;;) {
    try {
      await call();
      return { ms: performance.now() - since, failed };
    } catch {
      failed++;
      if (failed > 10_000) throw new Error('no call succeeded after the kill');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/**
 * Two daemons of a cluster on a real nats-server, a no-op extension (worker thread) on one of them. Closed loops of
 * no-op commands from sessions whose client is on the browser's daemon, and from sessions on the other daemon (their
 * commands cross over NATS request/reply). Then two failovers, with daemons in their own processes killed by SIGKILL.
 */
export async function clusterBench(options: { seconds: number; levels: number[] }): Promise<ClusterBenchResult> {
  // NATS as `browsermcp-daemon nats-config` sets it up (nkey users, least-privilege permissions), as in production.
  const keys = mkdtempSync(join(tmpdir(), 'bmcp-bench-nats-'));
  const files = writeNatsClusterFiles({ dir: join(keys, 'nats'), instances: ['a', 'b', 'c', 'same', 'entry'] });
  const nats = await NatsServer.start({ config: readFileSync(files.config, 'utf8') });
  const daemons: RunningDaemon[] = [];
  const children: ChildProcess[] = [];
  let worker: Worker | undefined;
  try {
    const cluster = (instanceId: string) => ({ nats: nats.url, instanceId, credentials: { nkeySeed: readFileSync(files.seeds[instanceId]!, 'utf8') } });
    const verifier = hs256Verifier(AUTH_SECRET);
    const accessToken = await signToken({ userId: USER, secret: AUTH_SECRET });
    const a = await startDaemon({ host: '127.0.0.1', port: 0, local: null, heartbeatMs: 600_000, verifier, cluster: cluster('a') });
    daemons.push(a);
    const b = await spawnDaemon(nats.url, files, 'b');
    const c = await spawnDaemon(nats.url, files, 'c');
    children.push(b.child, c.child);
    const ws = (address: string) => `${address.replace('http', 'ws')}/extension`;
    worker = new Worker(new URL('../workers/noop-extension.mjs', import.meta.url), {
      workerData: {
        urls: [ws(b.address), ws(c.address)],
        origin: `chrome-extension://${EXTENSION_ID}`,
        browserKey: BROWSER_KEY,
        pairingSecret: loadPairingSecret(PAIRING_FILE).secret,
        accessToken,
      },
    });
    const where = () => a.cluster!.browsersFor(USER).find((browser) => browser.id === BROWSER)?.instance;
    await until(() => where() === 'b', 'the extension on b');

    // The same-instance path runs on a daemon of its own in this process with the extension (a second worker), so
    // both paths are measured from this process with the same code.
    const same = await startDaemon({ host: '127.0.0.1', port: 0, local: null, heartbeatMs: 600_000, verifier, cluster: cluster('same') });
    daemons.push(same);
    const local = new Worker(new URL('../workers/noop-extension.mjs', import.meta.url), {
      workerData: { url: ws(same.address), origin: `chrome-extension://${EXTENSION_ID}`, browserKey: LOCAL_KEY, accessToken },
    });
    try {
      await until(async () => (await same.router.stats()).executors === 1, 'the extension on the same daemon');
      const levels: ClusterLevel[] = [];
      let seq = 0;
      for (const sessions of options.levels) {
        for (const [path, router, executorId, servedBy] of [
          ['same instance', same.router, LOCAL_KEY.browserId, 'same'],
          ['crossing', a.router, BROWSER, 'a'],
        ] as const) {
          const ids = Array.from({ length: sessions }, () => `bench-${++seq}`);
          for (const id of ids) await router.openSession(id, { executorId, userId: USER, servedBy });
          await closedLoop(router, ids, Math.max(300, (options.seconds * 1000) / 5), null);
          const latencies: number[] = [];
          const { commands, errors, ms } = await closedLoop(router, ids, options.seconds * 1000, latencies);
          levels.push({
            path,
            sessions,
            commands,
            commandsPerSec: (commands / ms) * 1000,
            p50: percentile(latencies, 50),
            p99: percentile(latencies, 99),
            errors,
          });
          for (const id of ids) await router.closeSession(id);
        }
      }

      // The browser's daemon dies; the extension reconnects to c; a's session goes on there.
      await a.router.openSession('failover-browser', { executorId: BROWSER, userId: USER, servedBy: 'a' });
      await a.router.dispatch('failover-browser', { name: 'browser_noop' });
      const killedAt = performance.now();
      await killed(b.child);
      const browser = await firstSuccess(() => a.router.dispatch('failover-browser', { name: 'browser_noop' }), killedAt);

      // The gateway's daemon dies; the gateway moves its session to a and takes it up there.
      const entry = await spawnDaemon(nats.url, files, 'entry');
      children.push(entry.child);
      const mcp = (address: string) => `${address.replace('http', 'ws')}/mcp`;
      const gateway = new RemoteBackend({
        daemonUrls: [mcp(entry.address), mcp(a.address)],
        daemonToken: accessToken,
        daemonBrowser: BROWSER,
        commandTimeoutMs: 10_000,
      });
      await until(() => where() === 'c', 'the extension on c');
      await gateway.openSession('mcp-session');
      await gateway.callTool('mcp-session', 'browser_noop', {});
      const entryKilledAt = performance.now();
      await killed(entry.child);
      const moved = await firstSuccess(() => gateway.callTool('mcp-session', 'browser_noop', {}), entryKilledAt);
      await gateway.close();
      return { levels, browserFailoverMs: browser.ms, gatewayFailoverMs: moved.ms, failedDuring: { browser: browser.failed, gateway: moved.failed } };
    } finally {
      local.postMessage('close');
      await local.terminate();
    }
  } finally {
    worker?.postMessage('close');
    await worker?.terminate();
    for (const child of children) if (child.exitCode === null && child.signalCode === null) await killed(child);
    for (const daemon of daemons) await daemon.close();
    await nats.close();
    rmSync(keys, { recursive: true, force: true });
  }
}
