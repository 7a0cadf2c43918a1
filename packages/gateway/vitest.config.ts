import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The pairing secret (--pairing-file's default) goes under a config directory of the run's own, not the user's.
    env: { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'bmcp-test-config-')) },
    include: ['test/**/*.test.ts'],
    // Each file runs its own gateway and Chromium; two cores cannot run several at once without flakiness.
    fileParallelism: false,
    testTimeout: 30_000,
    // The load test checks the gateway's memory after a forced collection.
    execArgv: ['--expose-gc'],
    hookTimeout: 30_000,
  },
});
