// Bundles each page of src/ (real component libraries from the registry) into dist/<page>.js and writes the page that
// loads it, dist/<page>.html. The engine's real-app tests serve them (index.js: realAppFiles).
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

const dist = new URL('dist/', import.meta.url);
await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
const pages = (await readdir(new URL('src/', import.meta.url))).filter((f) => /\.(tsx|ts)$/.test(f));
await build({
  entryPoints: Object.fromEntries(pages.map((f) => [f.replace(/\.tsx?$/, ''), `src/${f}`])),
  outdir: dist.pathname,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'chrome120',
  jsx: 'automatic',
  minify: true,
  define: {
    'process.env.NODE_ENV': '"production"',
    __VUE_OPTIONS_API__: 'true',
    __VUE_PROD_DEVTOOLS__: 'false',
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
  },
  logLevel: 'warning',
});
for (const file of pages) {
  const name = file.replace(/\.tsx?$/, '');
  await writeFile(
    new URL(`${name}.html`, dist),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title></head><body><div id="root"></div><script type="module" src="/realapps/${name}.js"></script></body></html>\n`,
  );
}
console.log(`realapps: ${pages.length} pages in dist/`);
