import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Browser tests will share one Chromium per file; two cores cannot run several at once without flakiness.
    fileParallelism: false,
    // Real Chromium launches (some tests launch two) take seconds on a loaded 2-core machine; 5 s is too tight.
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
