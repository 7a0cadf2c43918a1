import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file runs its own gateway and Chromium; two cores cannot run several at once without flakiness.
    fileParallelism: false,
    testTimeout: 30_000,
    // The load test checks the gateway's memory after a forced collection.
    execArgv: ['--expose-gc'],
    hookTimeout: 30_000,
  },
});
