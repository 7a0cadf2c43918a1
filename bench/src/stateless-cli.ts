#!/usr/bin/env node
// What a stateless MCP 2026-07-28 call costs against the same call in a long 2025 session:
// `npm run bench:stateless` from the repo root (after `npm run setup`). Prints a table for BENCHMARKS.md.
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { signToken, hs256Verifier, startDaemon } from '@browsermcp/daemon';
import { buildProgram, resolveConfig, startHttpGateway, type RunningHttpGateway } from '@browsermcp/gateway';
import { startFixtureServer } from '@browsermcp/testkit';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { percentile } from './stats.js';

const { values } = parseArgs({ options: { calls: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log(
    'browsermcp stateless bench: browser_snapshot in a long 2025 session against 2026-07-28 requests\n\n  --calls 200   calls per client and backend',
  );
  process.exit(0);
}
const calls = Number(values.calls ?? 200);
if (!Number.isInteger(calls) || calls < 10) throw new Error('--calls must be a whole number of at least 10');

const KEY = 'bench-key-0123456789abcdefghij';
const SECRET = 'a-bench-secret-that-is-at-least-32-bytes-long';

async function gateway(flags: string[]): Promise<RunningHttpGateway> {
  const program = buildProgram().exitOverride();
  program.parse(['--port', '0', '--headless', '--log-level', 'warn', '--api-key', KEY, ...flags], { from: 'user' });
  return startHttpGateway({ ...resolveConfig(program, {}), port: 0 });
}

async function timed(call: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 10; i++) await call(); // warm up
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await call();
    ms.push(performance.now() - started);
  }
  return ms;
}

async function measure(url: string, page: string): Promise<{ legacy: number[]; modern: number[] }> {
  const headers = { Authorization: `Bearer ${KEY}` };
  const legacy = new Client({ name: 'bench-2025', version: '1' });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  await legacy.callTool({ name: 'browser_navigate', arguments: { url: page } });
  const legacyMs = await timed(() => legacy.callTool({ name: 'browser_snapshot', arguments: {} }));
  await legacy.close();
  const modern = new ModernClient({ name: 'bench-2026', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(new ModernTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  await modern.callTool({ name: 'browser_navigate', arguments: { url: page } });
  const modernMs = await timed(() => modern.callTool({ name: 'browser_snapshot', arguments: {} }));
  await modern.close();
  return { legacy: legacyMs, modern: modernMs };
}

const server = await startFixtureServer();
const daemon = await startDaemon({
  host: '127.0.0.1',
  port: 0,
  local: { outputDir: join(tmpdir(), 'bmcp-bench-stateless'), headless: true },
  verifier: hs256Verifier(SECRET),
});
const token = await signToken({ userId: 'bench', secret: SECRET });
const rows: string[] = [];
try {
  const embedded = await gateway([]);
  const remote = await gateway(['--daemon-url', `${daemon.address.replace(/^http/, 'ws')}/mcp`, '--daemon-token', token]);
  try {
    for (const [name, gw] of [
      ['launched browser, embedded daemon', embedded],
      ['remote daemon (--daemon-url)', remote],
    ] as const) {
      const { legacy, modern } = await measure(gw.url, server.url('/index.html'));
      const p = (list: number[], q: number) => percentile(list, q).toFixed(2);
      rows.push(
        `| ${name} | ${p(legacy, 50)} / ${p(legacy, 95)} | ${p(modern, 50)} / ${p(modern, 95)} | +${(percentile(modern, 50) - percentile(legacy, 50)).toFixed(2)} ms |`,
      );
    }
  } finally {
    await Promise.all([embedded.close(), remote.close()]);
  }
} finally {
  await daemon.close();
  await server.close();
}
console.log(
  [
    `Run on ${new Date().toISOString().slice(0, 10)} with \`npm run bench:stateless${calls !== 200 ? ` -- --calls ${calls}` : ''}\` (${cpus().length} cores, Node ${process.version}): ${calls} \`browser_snapshot\` calls of the fixture home page, one after the other, after 10 to warm up; ms p50 / p95, client to answer over loopback HTTP with an API key.`,
    '',
    '| browser | 2025-11-25, one long session | 2026-07-28, stateless requests | added at p50 |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n'),
);
