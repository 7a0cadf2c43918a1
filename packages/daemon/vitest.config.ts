import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Browser tests will share one Chromium per file; two cores cannot run several at once without flakiness.
    fileParallelism: false,
  },
});
