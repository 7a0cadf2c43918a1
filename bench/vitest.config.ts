import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The smoke run starts gateways and Chromium; two cores cannot run it beside other browser files.
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 30_000,
  },
});
