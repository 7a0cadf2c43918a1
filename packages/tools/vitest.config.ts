import { defineConfig } from 'vitest/config';
import { runTempDir } from '@browsermcp/testkit';

export default defineConfig({
  test: {
    // Everything the run writes to the temporary directory goes under one that is removed when it ends.
    env: { TMPDIR: runTempDir() },
    include: ['test/**/*.test.ts'],
    // One Chromium for the run, launched before the first file and closed after the last; each file connects to it.
    globalSetup: ['test/global-browser.ts'],
    // Two cores cannot run several browser files at once without flakiness.
    fileParallelism: false,
    // One after the other in one worker that keeps its imports, as in the gateway and daemon packages.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
