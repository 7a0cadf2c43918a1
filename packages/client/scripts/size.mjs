// Bundle size, min+gzip: this client's ESM build against the official SDK's client (Client + Streamable HTTP
// transport), both bundled and minified by esbuild for the browser and gzipped by node:zlib at level 9.
// Run after `pnpm build`: node scripts/size.mjs [--json]
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build, version } from 'esbuild';

const here = fileURLToPath(new URL('..', import.meta.url));
const BUDGET = 5 * 1024;

async function measure(contents) {
  const out = await build({
    stdin: { contents, resolveDir: here, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0].contents;
  return { min: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

if (!existsSync(`${here}dist/index.js`)) {
  console.error('dist/index.js is missing: run `pnpm --filter @browsermcp/client build` first.');
  process.exit(1);
}
// Everything exported, so nothing is tree-shaken away: what a web app pays when it uses the whole API.
const ours = await measure(`export * from './dist/index.js';`);
const sdk = await measure(
  `export { Client } from '@modelcontextprotocol/sdk/client/index.js';
   export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';`,
);
const kb = (n) => `${(n / 1024).toFixed(2)} KB (${n.toLocaleString('en')} B)`;
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ client: ours, sdk, budget: BUDGET }));
} else {
  console.log('| bundle | minified | min+gzip |');
  console.log('|---|---|---|');
  console.log(`| @browsermcp/client (ESM, whole API) | ${kb(ours.min)} | ${kb(ours.gzip)} |`);
  console.log(`| @modelcontextprotocol/sdk Client + StreamableHTTPClientTransport | ${kb(sdk.min)} | ${kb(sdk.gzip)} |`);
  console.log(
    `\nKB = 1024 bytes; esbuild ${version}, gzip level 9. Budget ${kb(BUDGET)} min+gzip: ${ours.gzip <= BUDGET ? 'within' : 'OVER'} (${Math.round((ours.gzip / sdk.gzip) * 100)} % of the SDK client)`,
  );
}
if (ours.gzip > BUDGET) process.exitCode = 1;
