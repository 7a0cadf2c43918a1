import { defineConfig } from 'vitest/config';
import { runTempDir } from '@browsermcp/testkit';

export default defineConfig({
  test: {
    // Everything the run writes to the temporary directory goes under one that is removed when it ends.
    env: { TMPDIR: runTempDir() },
    include: ['test/**/*.test.ts'],
    // The smoke run starts gateways and Chromium; two cores cannot run it beside other browser files.
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 30_000,
  },
});
