import { defineConfig } from 'vitest/config';
import { runTempDir } from '@browsermcp/testkit';

export default defineConfig({
  test: {
    // Everything the run writes to the temporary directory goes under one that is removed when it ends.
    env: { TMPDIR: runTempDir() },
    include: ['test/**/*.test.ts'],
    // Each browser test file shares one Chromium; two cores cannot run several at once without flakiness.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
