// Builds the unpacked extension into dist/ (the development build: its manifest keeps the `key` that gives it the
// fixed id the gateway expects by default) and zips the store package browsermcp-extension-<version>.zip: the same
// files at relative paths, the manifest without `key` (the Chrome Web Store refuses one and assigns its own id).
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinModules } from 'node:module';
import { build } from 'esbuild';
import { zipSync } from 'fflate';

const here = new URL('.', import.meta.url);
const dist = new URL('dist/', here);
const { version } = JSON.parse(await readFile(new URL('package.json', here), 'utf8'));

// puppeteer-core's browser entry still imports Node-only modules it never calls in a worker: resolve them to an
// empty CommonJS module (plain --external would leave static imports the worker cannot load).
const NODE_ONLY = new Set(['ws', 'debug', 'yargs', 'yargs/helpers', '@puppeteer/browsers', 'chromium-bidi', ...builtinModules]);
const stubNodeOnly = {
  name: 'stub-node-only',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      const bare = args.path.replace(/^node:/, '');
      const root = bare.startsWith('@') ? bare.split('/').slice(0, 2).join('/') : bare.split('/')[0];
      if (args.path.startsWith('node:') || NODE_ONLY.has(bare) || NODE_ONLY.has(root) || bare.startsWith('chromium-bidi/')) {
        return { path: args.path, namespace: 'stub' };
      }
      return undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await build({
  entryPoints: { background: 'src/background.ts', popup: 'src/popup.ts', options: 'src/options.ts' },
  outdir: dist.pathname,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'chrome120',
  minify: false,
  sourcemap: 'linked',
  plugins: [stubNodeOnly],
  define: { __EXTENSION_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
});
// The icon's SVG source stays out: scripts/icons.mjs renders the PNGs Chrome takes.
await cp(new URL('static/', here), dist, { recursive: true, filter: (src) => !src.endsWith('.svg') });
const manifest = JSON.parse(await readFile(new URL('manifest.json', dist), 'utf8'));
manifest.version = version;
await writeFile(new URL('manifest.json', dist), `${JSON.stringify(manifest, null, 2)}\n`);

// The store package: the files of dist/ (no source maps) by their path inside it, "/"-separated as zip entries are.
const distDir = fileURLToPath(dist);
const files = {};
for (const entry of await readdir(distDir, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.map')) continue;
  const path = join(entry.parentPath, entry.name);
  files[relative(distDir, path).split(sep).join('/')] = new Uint8Array(await readFile(path));
}
const { key: _devKey, ...storeManifest } = manifest;
files['manifest.json'] = new TextEncoder().encode(`${JSON.stringify(storeManifest, null, 2)}\n`);
await writeFile(new URL(`browsermcp-extension-${version}.zip`, here), zipSync(files, { level: 9 }));
console.log(`extension ${version}: dist/ and browsermcp-extension-${version}.zip`);
