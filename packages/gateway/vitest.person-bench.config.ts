import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The person's-browser benchmark (test/person-bench.ts): run by `bench:person`, never by `test`.
export default defineConfig({
  test: {
    // The pairing secret goes under a config directory of the run's own, not the user's.
    env: { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'bmcp-person-bench-config-')) },
    include: ['test/person-bench.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
