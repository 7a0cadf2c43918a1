import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Vitest resolves modules its own way; plain Node must load the published builds too (a CommonJS dependency without
// ESM exports once broke the ESM build only under Node).
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const run = promisify(execFile);

describe('the built package', () => {
  it('loads as ESM in plain Node', async () => {
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(`${dist}index.js`)}); console.log(m.allTools.length)`,
    ]);
    expect(Number(stdout.trim())).toBeGreaterThan(30);
  });

  it('loads as CommonJS in plain Node', async () => {
    const { stdout } = await run(process.execPath, ['-e', `console.log(require(${JSON.stringify(`${dist}index.cjs`)}).allTools.length)`]);
    expect(Number(stdout.trim())).toBeGreaterThan(30);
  });
});
