import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runTempDir } from '@browsermcp/testkit';
import { defineConfig } from 'vitest/config';

// Everything the run writes to the temporary directory goes under one that is removed when it ends.
const tmp = runTempDir();
const config = join(tmp, 'config');
mkdirSync(config);

export default defineConfig({
  test: {
    // The pairing secret (--pairing-file's default) goes under a config directory of the run's own, not the user's.
    env: { TMPDIR: tmp, XDG_CONFIG_HOME: config },
    include: ['test/**/*.test.ts'],
    // Each file runs its own gateway and Chromium; two cores cannot run several at once without flakiness.
    fileParallelism: false,
    // One after the other in one worker that keeps its imports: each file importing the packages again cost ~12 s in all.
    isolate: false,
    testTimeout: 30_000,
    // The load test checks the gateway's memory after a forced collection.
    execArgv: ['--expose-gc'],
    hookTimeout: 30_000,
  },
});
