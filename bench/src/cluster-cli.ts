#!/usr/bin/env node
// The cluster benchmark: `npm run bench:cluster` from the repo root (after `npm run setup`; needs nats-server).
// --write puts its tables into BENCHMARKS.md between its own markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { clusterBench, type ClusterBenchResult } from './cluster-bench.js';
import { spliceSection } from './report.js';

const START = '<!-- bench:cluster:start (written by `npm run bench:cluster`; edits here are replaced) -->';
const END = '<!-- bench:cluster:end -->';

const { values } = parseArgs({
  options: { seconds: { type: 'string' }, levels: { type: 'string' }, write: { type: 'string' }, json: { type: 'string' }, help: { type: 'boolean' } },
});
if (values.help) {
  console.log(`browsermcp cluster bench: commands that cross daemons over NATS against commands that do not, and failover times

  --seconds 5        per level and path     --levels 1,16,64   sessions
  --write FILE       put the tables into FILE (BENCHMARKS.md) between its markers
  --json FILE        raw results`);
  process.exit(0);
}
const seconds = Number(values.seconds ?? 5);
const levels = (values.levels ?? '1,16,64').split(',').map(Number);
if (!(seconds > 0) || levels.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--seconds must be above 0 and --levels whole numbers above 0');

const result = await clusterBench({ seconds, levels });
const flags = process.argv.slice(2).filter((a, i, all) => a !== '--write' && all[i - 1] !== '--write');
const markdown = render(result, `npm run bench:cluster${flags.length ? ` -- ${flags.join(' ')}` : ''}`);
console.log(markdown);
if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2));
if (values.write) {
  const file = resolve(values.write);
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), markdown, '## Several daemons on NATS', { start: START, end: END }));
  process.stderr.write(`written to ${file}\n`);
}

function render(r: ClusterBenchResult, command: string): string {
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  const rows = r.levels.map(
    (l) => `| ${l.sessions} | ${l.path} | ${Math.round(l.commandsPerSec).toLocaleString('en')} | ${ms(l.p50)} | ${ms(l.p99)} | ${l.errors} |`,
  );
  const added = levels.map((n) => {
    const same = r.levels.find((l) => l.sessions === n && l.path === 'same instance');
    const crossing = r.levels.find((l) => l.sessions === n && l.path === 'crossing');
    return same && crossing ? `${n}: +${(crossing.p50 - same.p50).toFixed(2)} ms` : undefined;
  });
  const one = r.levels.filter((l) => l.sessions === levels[0]);
  const addedAtOne = one.length === 2 ? one[1]!.p50 - one[0]!.p50 : undefined;
  return [
    START,
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} with \`${command}\` (${cpus().length} cores, Node ${process.version}, Debian nats-server on loopback).`,
    '',
    'Two daemons of one cluster on a real nats-server; a no-op extension (a worker thread answering each command at once) connected to one of',
    'them. "same instance": sessions whose client is on the daemon holding the browser (its state in JetStream KV all the same). "crossing":',
    'sessions whose client is on the other daemon (its own process), so each command and its answer cross over NATS request/reply. Closed loop:',
    'each session sends its next command when the last is answered. As SECURITY.md sets a cluster up: NATS with one nkey user per daemon',
    'and least-privilege permissions (`nats-config`), the daemons sharing a token secret (`--auth-secret-file`), so each record is',
    "signed, proven and sealed by its server and checked where it is served and where it runs; the sessions and the browser are one user's.",
    '',
    '| sessions | path | commands/s | p50 | p99 | errors |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Crossing an instance adds, at p50: ${added.filter(Boolean).join('; ')} (goal: ≤ 2 ms on loopback${addedAtOne !== undefined ? `: ${addedAtOne <= 2 ? 'met' : '**not met**'} at ${levels[0]} session` : ''}).`,
    '',
    '| failover | kill → first successful call | calls that failed in between |',
    '| --- | --- | --- |',
    `| the daemon holding the browser killed (SIGKILL); the extension reconnects to another | ${ms(r.browserFailoverMs)} | ${r.failedDuring.browser} |`,
    `| the gateway's daemon killed (SIGKILL); the gateway moves to the next \`--daemon-url\` | ${ms(r.gatewayFailoverMs)} | ${r.failedDuring.gateway} |`,
    '',
    END,
  ].join('\n');
}
