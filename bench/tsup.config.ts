import { defineConfig } from 'tsup';

// ESM only: the bench is private and run by Node, nothing requires it.
export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts', 'src/cluster-cli.ts', 'src/stateless-cli.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
});
