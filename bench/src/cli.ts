#!/usr/bin/env node
// The side-by-side benchmark. Run from the repo root: `npm run bench` (after `npm run setup`).
// Flags change sizes for a quick look; --write puts the tables into BENCHMARKS.md between its markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { renderMarkdown, spliceSection } from './report.js';
import { DEFAULT_OPTIONS, runBench, type BenchOptions } from './run.js';
import { SERVERS, type ServerId } from './servers.js';

const { values } = parseArgs({
  options: {
    write: { type: 'string' },
    json: { type: 'string' },
    servers: { type: 'string' },
    rows: { type: 'string' },
    runs: { type: 'string' },
    iterations: { type: 'string' },
    'memory-sessions': { type: 'string' },
    'memory-servers': { type: 'string' },
    seconds: { type: 'string' },
    concurrency: { type: 'string' },
    'throughput-servers': { type: 'string' },
    'router-seconds': { type: 'string' },
    'task-servers': { type: 'string' },
    'cpu-prof': { type: 'string' },
    'rust-book': { type: 'string' },
    help: { type: 'boolean' },
  },
});

if (values.help) {
  console.log(`browsermcp bench: our gateway (HTTP, stdio) against @playwright/mcp and chrome-devtools-mcp

  --servers a,b            single-session servers (${Object.keys(SERVERS).join(', ')})
  --rows 300,3000          table sizes      --runs 5        snapshots per page
  --iterations 40          calls per action --memory-sessions 10 (0 skips)  --memory-servers a,b
  --seconds 20             per throughput level (0 skips)   --concurrency 1,5,20
  --throughput-servers a,b --router-seconds 5 (0 skips)
  --task-servers a,b|none  the real-app task suite (default ours-stdio,playwright-mcp)
  --cpu-prof DIR           our gateway runs with node --cpu-prof into DIR
  --rust-book FILE|none    the big real page (default: the Rust book of the installed rustc)
  --write FILE             put the tables into FILE (BENCHMARKS.md) between its markers
  --json FILE              raw results`);
  process.exit(0);
}

const list = (s: string | undefined) =>
  s
    ?.split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const servers = (s: string | undefined): ServerId[] | undefined => {
  const ids = list(s);
  for (const id of ids ?? []) if (!(id in SERVERS)) throw new Error(`unknown server ${id}; choose from ${Object.keys(SERVERS).join(', ')}`);
  return ids as ServerId[] | undefined;
};
const num = (s: string | undefined, fallback: number) => (s === undefined ? fallback : Number(s));

const routerSeconds = num(values['router-seconds'], DEFAULT_OPTIONS.router?.seconds ?? 5);
const options: BenchOptions = {
  ...DEFAULT_OPTIONS,
  servers: servers(values.servers) ?? DEFAULT_OPTIONS.servers,
  rows: list(values.rows)?.map(Number) ?? DEFAULT_OPTIONS.rows,
  snapshotRuns: num(values.runs, DEFAULT_OPTIONS.snapshotRuns),
  iterations: num(values.iterations, DEFAULT_OPTIONS.iterations),
  memorySessions: num(values['memory-sessions'], DEFAULT_OPTIONS.memorySessions),
  memoryServers: servers(values['memory-servers']) ?? DEFAULT_OPTIONS.memoryServers,
  throughputSeconds: num(values.seconds, DEFAULT_OPTIONS.throughputSeconds),
  concurrency: list(values.concurrency)?.map(Number) ?? DEFAULT_OPTIONS.concurrency,
  throughputServers: servers(values['throughput-servers']) ?? DEFAULT_OPTIONS.throughputServers,
  taskServers: values['task-servers'] === 'none' ? [] : (servers(values['task-servers']) ?? DEFAULT_OPTIONS.taskServers),
  router: routerSeconds > 0 ? { seconds: routerSeconds, levels: DEFAULT_OPTIONS.router?.levels ?? [1, 16, 64] } : null,
  rustBook: values['rust-book'] === 'none' ? undefined : (values['rust-book'] ?? DEFAULT_OPTIONS.rustBook),
  oursNodeArgs: values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', resolve(values['cpu-prof'])] : [],
  log: (line) => process.stderr.write(`${line}\n`),
};

const flags = process.argv.slice(2).filter((a, i, all) => a !== '--write' && all[i - 1] !== '--write');
const command = `npm run bench${flags.length ? ` -- ${flags.join(' ')}` : ''}`;
const result = await runBench(options);
const markdown = renderMarkdown(result, command);
console.log(markdown);
if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2));
if (values.write) {
  const file = resolve(values.write);
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), markdown));
  process.stderr.write(`written to ${file}\n`);
}
