import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  entry: ['src/index.ts'],
  // The IIFE (dist/index.global.js) is for <script> tags: minified, exposing window.BrowserMCP.
  format: ['esm', 'cjs', 'iife'],
  globalName: 'BrowserMCP',
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  define: { __VERSION__: JSON.stringify(version) },
  esbuildOptions(options, { format }) {
    if (format === 'iife') options.minify = true;
  },
  // `var BrowserMCP` is global only in a classic script; assign it explicitly for other hosts (workers, eval).
  footer: ({ format }) => (format === 'iife' ? { js: 'globalThis.BrowserMCP=BrowserMCP;' } : undefined),
});
