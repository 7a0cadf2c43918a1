import { rmSync } from 'node:fs';
import { rustBookPath, startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { Driver } from './driver.js';
import { machineInfo, treeCpu, treeMemory, type MachineInfo } from './proc.js';
import { routerBench, type RouterLevel } from './router-bench.js';
import {
  checkGateway,
  launchServer,
  ourBuildHash,
  makeWorkDir,
  packageVersion,
  SERVERS,
  type Connection,
  type LaunchedServer,
  type ServerEnv,
  type ServerId,
} from './servers.js';
import { RUST_BOOK_PAGE } from './pages.js';
import { median, percentile, timed } from './stats.js';
import { runTasks, type TaskRun } from './tasks-bench.js';

export interface BenchOptions {
  /** Servers for the single-session part (snapshots and actions). */
  servers: ServerId[];
  /** Table sizes for the snapshot part. */
  rows: number[];
  snapshotRuns: number;
  /** Round trips per action. */
  iterations: number;
  memorySessions: number;
  memoryServers: ServerId[];
  throughputSeconds: number;
  concurrency: number[];
  throughputServers: ServerId[];
  /** The Rust book's print.html for the big-real-page snapshot (found with rustc); undefined leaves it out. */
  rustBook?: string | undefined;
  /** Servers the real-app task suite runs against (empty skips it). */
  taskServers: ServerId[];
  /** null skips the router micro-benchmark. */
  router: { seconds: number; levels: number[] } | null;
  chromePath: string;
  /** Extra Node flags for our gateway, e.g. ['--cpu-prof', '--cpu-prof-dir', dir]. */
  oursNodeArgs?: string[];
  /**
   * Wait for the browser to go quiet before each load window (default true). The smoke test turns it off: it checks
   * that the parts run, not what they measure.
   */
  settle?: boolean;
  log?: (line: string) => void;
}

export const DEFAULT_OPTIONS: BenchOptions = {
  servers: ['ours-http', 'ours-stdio', 'playwright-mcp', 'chrome-devtools-mcp'],
  rows: [300, 3000],
  snapshotRuns: 5,
  iterations: 40,
  memorySessions: 10,
  memoryServers: ['ours-http', 'ours-stdio', 'playwright-mcp-http', 'chrome-devtools-mcp'],
  throughputSeconds: 20,
  concurrency: [1, 5, 20],
  throughputServers: ['ours-http', 'playwright-mcp-http'],
  router: { seconds: 5, levels: [1, 16, 64] },
  taskServers: ['ours-stdio', 'playwright-mcp'],
  chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  rustBook: rustBookPath(),
};

export interface SnapshotRow {
  page: string;
  /** A page changed since the last snapshot (the bench touches it, untimed, before each run). */
  medianMs: number;
  minMs: number;
  /** The same page asked again with no change in between. */
  unchangedMs?: number;
  chars: number;
}
export interface ActionRow {
  action: 'click' | 'type' | 'navigate' | 'evaluate';
  p50: number;
  p95: number;
  n: number;
}
export interface SessionResult {
  id: ServerId;
  label: string;
  snapshots: SnapshotRow[];
  actions: ActionRow[];
  error?: string;
}
export interface MemoryResult {
  id: ServerId;
  label: string;
  sessions: number;
  processes: number;
  rssMB: number;
  pssMB: number;
  error?: string;
}
export interface ThroughputRow {
  id: ServerId;
  label: string;
  sessions: number;
  calls: number;
  callsPerSec: number;
  p50: number;
  p95: number;
  errors: number;
  /** CPU used during the window, in % of one core: the server's own process, and everything below it (Chromium). */
  serverCpu?: number;
  browserCpu?: number;
  firstError?: string;
  error?: string;
}
export interface TaskResult extends Partial<TaskRun> {
  id: ServerId;
  label: string;
  error?: string;
}

export interface BenchResult {
  options: Omit<BenchOptions, 'log'>;
  machine: MachineInfo;
  versions: Record<string, string>;
  notes: string[];
  /** ourBuildHash() at the start. */
  build?: string;
  sessions: SessionResult[];
  memory: MemoryResult[];
  throughput: ThroughputRow[];
  router: RouterLevel[] | null;
  routerError?: string;
  tasks: TaskResult[];
  durationS: number;
}

interface Page {
  name: string;
  path: string;
}

function pagesFor(rows: number[], rustBook: boolean): Page[] {
  return [
    ...rows.map((r) => ({ name: `${r.toLocaleString('en')}-row table`, path: `/table?rows=${r}` })),
    ...(rustBook ? [{ name: RUST_BOOK_PAGE, path: '/rust-book.html' }] : []),
    { name: 'form', path: '/form.html' },
    { name: 'iframes (same + cross origin)', path: '/frames.html' },
  ];
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);

async function openDriver(server: LaunchedServer, name: string): Promise<[Connection, Driver]> {
  const connection = await server.connect(name);
  const driver = new Driver(connection.client, server.spec.dialect);
  await driver.init();
  return [connection, driver];
}

/** Snapshots of every page, then click, type, navigate and evaluate round trips, in one session. */
async function singleSession(server: LaunchedServer, fx: FixtureServer, options: BenchOptions): Promise<Omit<SessionResult, 'id' | 'label'>> {
  const [connection, d] = await openDriver(server, 'bench-single');
  try {
    await d.navigate(fx.url('/index.html')); // launches the browser: not timed
    const snapshots: SnapshotRow[] = [];
    for (const page of pagesFor(options.rows, options.rustBook !== undefined)) {
      await d.navigate(fx.url(page.path));
      const times: number[] = [];
      const unchanged: number[] = [];
      let chars = 0;
      for (let i = 0; i < options.snapshotRuns; i++) {
        // Untimed: a change to the page, so that each timed snapshot reads a page it has not seen.
        await d.evaluate(`() => { document.body.dataset.benchRun = '${i}'; }`);
        const [t, text] = await timed(() => d.snapshot());
        times.push(t);
        chars = text.length;
        unchanged.push((await timed(() => d.snapshot()))[0]);
      }
      snapshots.push({ page: page.name, medianMs: median(times), minMs: Math.min(...times), unchangedMs: median(unchanged), chars });
      options.log?.(`  ${server.spec.label}: ${page.name} snapshot ${median(times).toFixed(1)} ms, ${chars} chars`);
    }
    const actions: ActionRow[] = [];
    /** `options.iterations` timed calls of `fn`; `before` runs untimed ahead of each (a fresh ref when needed). */
    const loop = async (action: ActionRow['action'], fn: (i: number) => Promise<unknown>, before?: () => Promise<void>) => {
      const times: number[] = [];
      for (let i = 0; i < options.iterations; i++) {
        if (i > 0) await before?.();
        times.push((await timed(() => fn(i)))[0]);
      }
      actions.push({ action, p50: percentile(times, 50), p95: percentile(times, 95), n: times.length });
      options.log?.(`  ${server.spec.label}: ${action} p50 ${percentile(times, 50).toFixed(1)} ms`);
    };
    // The counter button is named "Click me", then "Clicked N times": refs are looked up by the prefix "Click".
    await d.navigate(fx.url('/index.html'));
    let button = d.refIn(await d.snapshot(), 'button', 'Click');
    const refresh = async (role: string, name: string, ref: string) => (d.refsSurviveActions ? ref : d.refIn(await d.snapshot(), role, name));
    await loop(
      'click',
      () => d.click(button, 'Click me button'),
      async () => void (button = await refresh('button', 'Click', button)),
    );
    await loop('evaluate', () => d.evaluate('() => document.title'));
    await d.navigate(fx.url('/form.html'));
    let name = d.refIn(await d.snapshot(), 'textbox', 'Name');
    await loop(
      'type',
      (i) => d.type(name, 'Name textbox', `user ${i}`),
      async () => void (name = await refresh('textbox', 'Name', name)),
    );
    await loop('navigate', (i) => d.navigate(fx.url(i % 2 === 0 ? '/index.html' : '/form.html')));
    return { snapshots, actions };
  } finally {
    await connection.close();
  }
}

async function memoryAfterSessions(server: LaunchedServer, fx: FixtureServer, sessions: number): Promise<Omit<MemoryResult, 'id' | 'label'>> {
  const connections: Connection[] = [];
  try {
    for (let i = 0; i < sessions; i++) {
      const [connection, d] = await openDriver(server, `bench-memory-${i}`);
      connections.push(connection);
      await d.navigate(fx.url('/table?rows=300'));
      await d.snapshot();
    }
    await new Promise((r) => setTimeout(r, 1_000));
    return { sessions, ...treeMemory(server.rootPids()) };
  } finally {
    await Promise.all(connections.map((c) => c.close()));
  }
}

/**
 * Waits (at most a minute) until the server and its browser use under a tenth of a core for two seconds in a row.
 * Chromium keeps working for seconds after a new context's first page (here about 0.7 core-seconds per context, much
 * of it returning memory to the system), which would be charged to the calls of the first seconds of the window:
 * the window measures the calls, not the start-up of the sessions.
 */
async function quietTree(roots: readonly number[]): Promise<void> {
  const deadline = performance.now() + 60_000;
  let quiet = 0;
  let last = treeCpu(roots);
  while (quiet < 2 && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = treeCpu(roots);
    quiet = now.rootS + now.childrenS - (last.rootS + last.childrenS) < 0.1 ? quiet + 1 : 0;
    last = now;
  }
}

/** `sessions` clients, each looping navigate → snapshot → click for `seconds`. */
async function throughput(
  server: LaunchedServer,
  fx: FixtureServer,
  sessions: number,
  seconds: number,
  settle: boolean,
): Promise<Omit<ThroughputRow, 'id' | 'label'>> {
  const opened = await Promise.all(Array.from({ length: sessions }, (_, i) => openDriver(server, `bench-load-${i}`)));
  try {
    await Promise.all(opened.map(([, d]) => d.navigate(fx.url('/index.html')))); // browser and contexts up: not timed
    if (settle) await quietTree(server.rootPids());
    const latencies: number[] = [];
    let errors = 0;
    let firstError: string | undefined;
    const cpu0 = treeCpu(server.rootPids());
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    const call = async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
      const start = performance.now();
      try {
        const out = await fn();
        latencies.push(performance.now() - start);
        return out;
      } catch (error) {
        errors++;
        firstError ??= message(error);
        return undefined;
      }
    };
    await Promise.all(
      opened.map(async ([, d]) => {
        while (performance.now() < end) {
          if ((await call(() => d.navigate(fx.url('/index.html')))) === undefined) continue;
          const snap = await call(() => d.snapshot());
          if (snap === undefined) continue;
          let ref: string;
          try {
            ref = d.refIn(snap, 'button', 'Click');
          } catch (error) {
            errors++;
            firstError ??= message(error);
            continue;
          }
          await call(() => d.click(ref, 'Click me button'));
        }
      }),
    );
    const elapsed = performance.now() - t0;
    const cpu1 = treeCpu(server.rootPids());
    // Only meaningful for one server process (HTTP); on stdio every session is its own root.
    const cpu =
      server.spec.transport === 'http'
        ? { serverCpu: ((cpu1.rootS - cpu0.rootS) / elapsed) * 100_000, browserCpu: ((cpu1.childrenS - cpu0.childrenS) / elapsed) * 100_000 }
        : {};
    return {
      ...cpu,
      sessions,
      calls: latencies.length,
      callsPerSec: (latencies.length / elapsed) * 1000,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      errors,
      ...(firstError ? { firstError } : {}),
    };
  } finally {
    await Promise.all(opened.map(([c]) => c.close()));
  }
}

export async function runBench(options: BenchOptions = DEFAULT_OPTIONS): Promise<BenchResult> {
  const started = performance.now();
  const log = options.log;
  const machine = machineInfo(options.chromePath);
  const notes: string[] = [];
  checkGateway();
  const buildAtStart = ourBuildHash();
  if (options.servers.includes('playwright-mcp')) {
    notes.push(
      '@playwright/mcp renumbers its refs with every action (a stale ref fails), so before each of its timed clicks and types the bench takes an untimed snapshot for a fresh ref.',
    );
  }
  const workDir = makeWorkDir();
  const env: ServerEnv = { chromePath: options.chromePath, oursNodeArgs: options.oursNodeArgs ?? [], workDir };
  const fx = await startFixtureServer(options.rustBook ? { files: { '/rust-book.html': options.rustBook } } : {});
  if (!options.rustBook) notes.push('No Rust installation found (rustc --print sysroot): the big real page is left out.');
  const { log: _log, ...recorded } = options;
  const result: BenchResult = {
    options: recorded,
    machine,
    versions: {
      '@browsermcp/gateway': packageVersion('@browsermcp/gateway'),
      '@playwright/mcp': packageVersion('@playwright/mcp'),
      'chrome-devtools-mcp': packageVersion('chrome-devtools-mcp'),
      '@modelcontextprotocol/sdk': packageVersion('@modelcontextprotocol/sdk'),
    },
    notes,
    sessions: [],
    memory: [],
    throughput: [],
    router: null,
    tasks: [],
    durationS: 0,
  };
  try {
    for (const id of options.servers) {
      log?.(`single session: ${SERVERS[id].label}`);
      const server = await launchServer(id, env);
      try {
        result.sessions.push({ id, label: SERVERS[id].label, ...(await singleSession(server, fx, options)) });
      } catch (error) {
        result.sessions.push({ id, label: SERVERS[id].label, snapshots: [], actions: [], error: message(error) });
        log?.(`  failed: ${message(error)}`);
      } finally {
        await server.close();
      }
    }
    if (options.memorySessions > 0) {
      for (const id of options.memoryServers) {
        log?.(`memory after ${options.memorySessions} sessions: ${SERVERS[id].label}`);
        const server = await launchServer(id, env);
        try {
          const m = await memoryAfterSessions(server, fx, options.memorySessions);
          result.memory.push({ id, label: SERVERS[id].label, ...m });
          log?.(`  ${m.rssMB.toFixed(0)} MB RSS, ${m.pssMB.toFixed(0)} MB PSS, ${m.processes} processes`);
        } catch (error) {
          result.memory.push({ id, label: SERVERS[id].label, sessions: options.memorySessions, processes: 0, rssMB: 0, pssMB: 0, error: message(error) });
          log?.(`  failed: ${message(error)}`);
        } finally {
          await server.close();
        }
      }
    }
    if (options.throughputSeconds > 0) {
      for (const id of options.throughputServers) {
        const server = await launchServer(id, env);
        try {
          for (const sessions of options.concurrency) {
            log?.(`throughput: ${SERVERS[id].label}, ${sessions} sessions, ${options.throughputSeconds} s`);
            try {
              const row = await throughput(server, fx, sessions, options.throughputSeconds, options.settle !== false);
              result.throughput.push({ id, label: SERVERS[id].label, ...row });
              log?.(`  ${row.callsPerSec.toFixed(1)} calls/s, p95 ${row.p95.toFixed(0)} ms, ${row.errors} errors`);
            } catch (error) {
              result.throughput.push({ id, label: SERVERS[id].label, sessions, calls: 0, callsPerSec: 0, p50: 0, p95: 0, errors: 0, error: message(error) });
              log?.(`  failed: ${message(error)}`);
            }
          }
        } finally {
          await server.close();
        }
      }
    }
    for (const id of options.taskServers) {
      log?.(`real-app tasks: ${SERVERS[id].label}`);
      const server = await launchServer(id, env);
      try {
        result.tasks.push({ id, label: SERVERS[id].label, ...(await runTasks(server, fx, log)) });
      } catch (error) {
        result.tasks.push({ id, label: SERVERS[id].label, error: message(error) });
        log?.(`  failed: ${message(error)}`);
      } finally {
        await server.close();
      }
    }
    if (options.router) {
      log?.('router micro-benchmark');
      try {
        result.router = await routerBench(options.router);
      } catch (error) {
        result.routerError = message(error);
      }
    }
  } finally {
    await fx.close();
    rmSync(workDir, { recursive: true, force: true });
  }
  const buildAtEnd = ourBuildHash();
  result.build = buildAtStart;
  if (buildAtEnd !== buildAtStart) {
    notes.push(
      `Our packages were rebuilt during this run (build ${buildAtStart} at the start, ${buildAtEnd} at the end): servers started later ran the newer build. Run again for numbers from one build.`,
    );
  }
  result.durationS = (performance.now() - started) / 1000;
  return result;
}
