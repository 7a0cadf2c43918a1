import { writeFileSync } from 'node:fs';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { rustBookPath, startFixtureServer } from '@browsermcp/testkit';
import { expect, it } from 'vitest';
import { connectClient, startGateway, text } from './helpers.js';
import { startPersonRig } from './scenarios/person-rig.js';

// How the person's browser (the built extension in a headed Chromium under Xvfb, the agent's tab behind the person's,
// no browser-wide DevTools client) compares with a browser the gateway launches (headless), on the Rust book
// (`print.html`, 1.9 MB, which prints itself once loaded), with the gateway's default flags; and how soon a click on a
// link to a site the person put off limits answers. `npx -y pnpm@12.4.2 --filter @browsermcp/gateway bench:person`
// (RUNS=5 by default); prints a Markdown table for BENCHMARKS.md and writes the numbers to $BENCH_JSON if set.

const RUNS = Number(process.env.RUNS ?? 5);
type Client = Awaited<ReturnType<typeof connectClient>>;
type Samples = Record<string, number[]>;

async function timed(samples: Samples, name: string, call: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await call();
  (samples[name] ??= []).push(performance.now() - start);
}

/** Each run: the book opened afresh, then a snapshot of it changed, a find, a text read and a click on a link within it. */
async function onTheBook(client: Client, url: string): Promise<Samples> {
  const samples: Samples = {};
  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
    expect(result.isError, `${name}: ${text(result).slice(0, 300)}`).toBeFalsy();
  };
  for (let run = 0; run < RUNS; run++) {
    await timed(samples, 'navigate', () => tool('browser_navigate', { url }));
    // A changed page, so the snapshot walks it afresh (an unchanged one is answered from the last walk).
    await tool('browser_evaluate', { function: `() => { document.querySelector('main').insertAdjacentHTML('afterbegin', '<p>Run ${run}</p>'); }` });
    await timed(samples, 'snapshot', () => tool('browser_snapshot', {}));
    await timed(samples, 'find', () => tool('browser_find', { text: 'references and borrowing' }));
    await timed(samples, 'get_text', () => tool('browser_get_text', { target: '#what-is-ownership + p' }));
    await timed(samples, 'click', () => tool('browser_click', { target: 'a[href="#references-and-borrowing"]' }));
  }
  return samples;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

it('the Rust book in the person’s browser and in a launched one; a refused navigation', async () => {
  const book = rustBookPath();
  if (!book) throw new Error('the Rust book comes with an installed Rust (rustup; rustc --print sysroot)');
  const rig = await startPersonRig({ flags: [], files: { '/rust-book.html': book } });
  let person: Samples;
  const refused: number[] = [];
  try {
    const client = await connectClient(rig.gw, 'Bench reader');
    person = await onTheBook(client, rig.server.url('/rust-book.html'));
    // A click on a link to a site the person put off limits: the answer comes once the tab shows why.
    await rig.setStorage({ offLimits: 'localhost' });
    const link = rig.server.crossUrl('/form.html');
    for (let run = 0; run < RUNS; run++) {
      await client.callTool({ name: 'browser_navigate', arguments: { url: rig.server.url('/index.html') } });
      await client.callTool({
        name: 'browser_evaluate',
        arguments: { function: `() => { document.body.insertAdjacentHTML('afterbegin', '<a id="away" href=${JSON.stringify(link)}>Away</a>'); }` },
      });
      const start = performance.now();
      const answer = text(await client.callTool({ name: 'browser_click', arguments: { target: '#away' } }));
      refused.push(performance.now() - start);
      expect(answer).toContain('- Page Title: Blocked by browsermcp');
    }
    await rig.setStorage({ offLimits: '' });
    await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
    await client.close();
  } finally {
    await rig.close();
  }
  const server = await startFixtureServer({ files: { '/rust-book.html': book } });
  const gw = await startGateway([]);
  let launched: Samples;
  try {
    const client = await connectClient(gw, 'Bench reader');
    launched = await onTheBook(client, server.url('/rust-book.html'));
    await client.close();
  } finally {
    await gw.close();
    await server.close();
  }
  const rows = Object.keys(person).map((step) => {
    const [p, l] = [median(person[step]!), median(launched[step]!)];
    return `| ${step} | ${p.toFixed(0)} ms | ${l.toFixed(0)} ms | ${(p / l).toFixed(2)}× |`;
  });
  const table = [
    `Rust book, median of ${RUNS} runs each (the person's browser: headed, the agent's tab in the background):`,
    '',
    "| step | person's browser | launched (headless) | ratio |",
    '|---|---|---|---|',
    ...rows,
    '',
    `A click on a link to a site the person put off limits, answered with the blocked page: median ${median(refused).toFixed(0)} ms, slowest ${Math.max(...refused).toFixed(0)} ms (${RUNS} runs).`,
  ].join('\n');
  console.log(`\n${table}\n`);
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ runs: RUNS, person, launched, refused }, null, 2));
});
