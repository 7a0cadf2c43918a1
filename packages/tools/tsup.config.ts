import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  // Bundled in: gifenc's CommonJS main hides its named exports from Node's ESM loader, and fast-png is ESM-only,
  // which the CommonJS build could not require. Bundled, both builds load everywhere.
  noExternal: ['gifenc', 'fast-png'],
  // The engine also runs in an MV3 worker: bundled code must be the browser builds (fflate's Node build pulls in
  // worker_threads through node:module).
  platform: 'browser',
});
