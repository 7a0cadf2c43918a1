import { defineConfig } from 'tsup';

export default defineConfig({
  // cli.ts is the browsermcp-daemon bin (dist/cli.js keeps its shebang); only the library needs types.
  entry: ['src/index.ts', 'src/cli.ts'],
  format: ['esm', 'cjs'],
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
});
