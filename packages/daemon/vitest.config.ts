import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The pairing secret (--pairing-file's default) goes under a config directory of the run's own, not the user's.
    env: { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'bmcp-test-config-')) },
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Browser tests will share one Chromium per file; two cores cannot run several at once without flakiness.
    fileParallelism: false,
    // Real Chromium launches (some tests launch two) take seconds on a loaded 2-core machine; 5 s is too tight.
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
