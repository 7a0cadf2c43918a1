import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startFixtureServer } from '@browsermcp/testkit';
const fx = await startFixtureServer({ files: { '/big.html': process.argv[2] } });
const t = new StdioClientTransport({ command: process.execPath, args: ['--cpu-prof', '--cpu-prof-dir', '/tmp/prof', 'dist/cli.js', '--headless', '--snapshot-max-chars', '10000000'], stderr: 'ignore' });
const c = new Client({ name: 'perf', version: '1' });
await c.connect(t);
await c.callTool({ name: 'browser_navigate', arguments: { url: fx.url('/big.html') } });
for (let i = 0; i < 8; i++) {
  const s = performance.now();
  await c.callTool({ name: 'browser_snapshot', arguments: {} });
  const mid = performance.now();
  await c.callTool({ name: 'browser_evaluate', arguments: { function: `() => { document.body.dataset.x = '${i}' }` } });
  const s2 = performance.now();
  await c.callTool({ name: 'browser_snapshot', arguments: {} });
  console.log('unchanged', (mid - s).toFixed(0), 'changed', (performance.now() - s2).toFixed(0));
}
await c.close(); await fx.close();
