// Keeps the benchmark from rotting: the whole harness at tiny sizes (20 rows, 1 run, 0.3 s of load per level), ours only
// by default. BENCH_SMOKE_PEERS=1 adds @playwright/mcp and chrome-devtools-mcp (slower). The real run is `npm run bench`.
import { expect, it } from 'vitest';
import { clusterBench, renderMarkdown, runBench, spliceSection, type BenchOptions } from '../src/index.js';
import { END_MARK, START_MARK } from '../src/report.js';

const peers = process.env.BENCH_SMOKE_PEERS === '1';

it('runs the scripted session, memory, load and router parts at tiny sizes and renders the report', async () => {
  const options: BenchOptions = {
    servers: peers ? ['ours-http', 'ours-stdio', 'playwright-mcp', 'chrome-devtools-mcp'] : ['ours-http', 'ours-stdio'],
    rows: [20],
    snapshotRuns: 1,
    iterations: 2,
    memorySessions: 2,
    memoryServers: ['ours-http'],
    // Long enough for a round of calls: the first call starts the window, and the checks ask for calls, not a rate.
    throughputSeconds: 0.3,
    settle: false,
    concurrency: [1, 2],
    throughputServers: ['ours-http'],
    router: { seconds: 0.2, levels: [1, 4] },
    // The real-app suite takes a while: its report is checked below from outcomes given to it.
    taskServers: [],
    chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  };
  const result = await runBench(options);

  for (const s of result.sessions) {
    expect(s.error, s.label).toBeUndefined();
    expect(s.snapshots.map((p) => p.page)).toEqual(['20-row table', 'form', 'iframes (same + cross origin)']);
    expect(s.snapshots.every((p) => p.chars > 0 && p.medianMs > 0)).toBe(true);
    expect(s.actions.map((a) => a.action).sort()).toEqual(['click', 'evaluate', 'navigate', 'type']);
  }
  expect(result.memory[0]).toMatchObject({ id: 'ours-http', sessions: 2 });
  expect(result.memory[0]!.error).toBeUndefined();
  expect(result.memory[0]!.processes).toBeGreaterThan(1); // the gateway and its Chromium
  expect(result.throughput.map((t) => [t.sessions, t.errors, t.error])).toEqual([
    [1, 0, undefined],
    [2, 0, undefined],
  ]);
  expect(result.throughput.every((t) => t.calls > 0)).toBe(true);
  expect(result.routerError).toBeUndefined();
  expect(result.router?.every((l) => l.commands > 0 && l.errors === 0)).toBe(true);

  const markdown = renderMarkdown(result, 'smoke');
  expect(markdown).toContain('### Snapshot time');
  expect(markdown).toContain('### Router micro-benchmark');
  const doc = spliceSection('# Benchmarks\n\n## Engine\n\nkept\n', markdown);
  expect(doc).toContain('kept');
  expect(spliceSection(doc, `${START_MARK}\nnew\n${END_MARK}`)).toBe(doc.replace(markdown, `${START_MARK}\nnew\n${END_MARK}`));
});

it('renders the real-app task table and judges its targets from the outcomes of each server', () => {
  const outcome = (id: string, done: boolean, chars: number) => ({ id, library: 'lib', done, falseSuccess: !done, chars, calls: 3, ms: 100 });
  const markdown = renderMarkdown(
    {
      options: { rows: [20], snapshotRuns: 1, iterations: 1, memorySessions: 0, throughputSeconds: 0 },
      machine: { date: '2026-11-28', nproc: 2, cpu: 'cpu', memoryGB: 1, node: 'v20', chromium: 'Chromium', loadAtStart: '0' },
      versions: {},
      notes: [],
      sessions: [],
      memory: [],
      throughput: [],
      router: null,
      tasks: [
        { id: 'ours-stdio', label: 'ours', outcomes: [outcome('a', true, 100), outcome('b', true, 300)], snapshotChars: { 'p.html': 60 } },
        { id: 'playwright-mcp', label: 'theirs', outcomes: [outcome('a', true, 400), outcome('b', false, 50)], snapshotChars: { 'p.html': 100 } },
      ],
      durationS: 1,
    } as unknown as Parameters<typeof renderMarkdown>[0],
    'smoke',
  );
  expect(markdown).toContain('| a | lib | done, 100 | done, 400 |');
  expect(markdown).toContain('| b | lib | done, 300 | **false success**, 50 |');
  // Characters per task count only the tasks both completed (a): 100 against 400.
  expect(markdown).toContain('| characters the agent reads per real-app task ≤ 0.5× @playwright/mcp | 0.250× (100 vs 400) | yes |');
  expect(markdown).toContain('| snapshot on each real-app page ≤ 0.7× @playwright/mcp | at most 0.600× (1 page) | yes |');
});

it('runs the cluster bench at a tiny size: both paths answer, both failovers end in a successful call', async () => {
  const result = await clusterBench({ seconds: 0.1, levels: [1, 2] });
  expect(result.levels.map((l) => [l.sessions, l.path, l.errors])).toEqual([
    [1, 'same instance', 0],
    [1, 'crossing', 0],
    [2, 'same instance', 0],
    [2, 'crossing', 0],
  ]);
  expect(result.levels.every((l) => l.commands > 0)).toBe(true);
  expect(result.browserFailoverMs).toBeGreaterThan(0);
  expect(result.gatewayFailoverMs).toBeGreaterThan(0);
}, 60_000);
