import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { runTempDir } from '@browsermcp/testkit';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __VERSION__: JSON.stringify(version) },
  test: {
    // Everything the run writes to the temporary directory goes under one that is removed when it ends.
    env: { TMPDIR: runTempDir() },
    include: ['test/**/*.test.ts'],
    // Several files start a gateway with its Chromium, or a test browser: one file at a time on two cores.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
