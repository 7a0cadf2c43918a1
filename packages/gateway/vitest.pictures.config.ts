import { defineConfig } from 'vitest/config';

// The README pictures of the extension (test/readme-pictures.ts): run by `pictures`, never by `test`.
export default defineConfig({
  test: {
    include: ['test/readme-pictures.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
