// Engine benchmark: snapshot time and size on big tables, click and evaluate latency, on real Chromium.
// Run: pnpm --filter @browsermcp/tools bench   (after a build; ROWS=300,3000 RUNS=5 to change sizes)
import { cpus } from 'node:os';
import { launchTestBrowser, startFixtureServer } from '@browsermcp/testkit';
import { callTool, ToolSession } from '../dist/index.js';

const rowsList = (process.env.ROWS ?? '300,3000').split(',').map(Number);
const runs = Number(process.env.RUNS ?? 5);
const iterations = Number(process.env.ITERATIONS ?? 50);

const text = (r) =>
  r.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x) => `${x.toFixed(1)} ms`;

async function time(fn) {
  const t0 = performance.now();
  const result = await fn();
  if (result?.isError) throw new Error(text(result));
  return [performance.now() - t0, result];
}

const [browser, server] = await Promise.all([launchTestBrowser(), startFixtureServer()]);
const context = await browser.createBrowserContext();
const session = new ToolSession({ newPage: () => context.newPage() }, { snapshotMaxChars: Infinity, includeSnapshot: false });
const lines = [];
try {
  lines.push('| page | snapshot median | min | size (chars) | ≈ tokens |', '|---|---|---|---|---|');
  for (const rows of rowsList) {
    await callTool(session, 'browser_navigate', { url: server.url(`/table?rows=${rows}`) });
    const times = [];
    let size = 0;
    for (let i = 0; i < runs; i++) {
      const [t, r] = await time(() => callTool(session, 'browser_snapshot', {}));
      times.push(t);
      size = /```yaml\n([\s\S]*)\n```/.exec(text(r))[1].length;
    }
    lines.push(
      `| ${rows}-row table | ${ms(pct(times, 50))} | ${ms(Math.min(...times))} | ${size.toLocaleString('en')} | ${Math.round(size / 4).toLocaleString('en')} |`,
    );
  }
  // Actions as users get them: each click answer carries the page snapshot (default settings).
  const actions = new ToolSession({ newPage: () => context.newPage() });
  await callTool(actions, 'browser_navigate', { url: server.url('/index.html') });
  const clicks = [];
  const evals = [];
  for (let i = 0; i < iterations; i++) clicks.push((await time(() => callTool(actions, 'browser_click', { target: '#counter' })))[0]);
  for (let i = 0; i < iterations; i++) evals.push((await time(() => callTool(actions, 'browser_evaluate', { function: '() => document.title' })))[0]);
  // The same click on the biggest table: its answer carries the snapshot cut at the default 40,000 characters.
  const bigRows = Math.max(...rowsList);
  await callTool(actions, 'browser_navigate', { url: server.url(`/table?rows=${bigRows}`) });
  const bigClicks = [];
  for (let i = 0; i < iterations; i++) bigClicks.push((await time(() => callTool(actions, 'browser_click', { target: 'button' })))[0]);
  lines.push('', '| action | p50 | p95 |', '|---|---|---|');
  lines.push(`| browser_click (static page) | ${ms(pct(clicks, 50))} | ${ms(pct(clicks, 95))} |`);
  lines.push(`| browser_evaluate (static page) | ${ms(pct(evals, 50))} | ${ms(pct(evals, 95))} |`);
  lines.push(`| browser_click (${bigRows}-row table, answer cut at 40,000 chars) | ${ms(pct(bigClicks, 50))} | ${ms(pct(bigClicks, 95))} |`);
  const v = await browser.version();
  lines.push('', `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${v}, ${runs} snapshot runs, ${iterations} actions each.`);
  console.log(lines.join('\n'));
} finally {
  await context.close();
  await browser.close();
  await server.close();
}
