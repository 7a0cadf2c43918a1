import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The README pictures of the extension (test/readme-pictures.ts): run by `pictures`, never by `test`.
export default defineConfig({
  test: {
    // The pairing secret goes under a config directory of the run's own, not the user's.
    env: { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'bmcp-pictures-config-')) },
    include: ['test/readme-pictures.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
