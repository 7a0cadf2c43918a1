import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

// Records every import of a Node built-in instead of letting esbuild resolve or externalize it.
function forbidNodeBuiltins(found: string[]): Plugin {
  return {
    name: 'forbid-node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (builtins.has(args.path) || args.path.startsWith('node:')) {
          found.push(`${args.path} (imported by ${args.importer})`);
          return { path: args.path, external: true };
        }
        return undefined;
      });
    },
  };
}

describe('the engine runs in an MV3 service worker', () => {
  it('bundles for the browser platform without any Node built-in', async () => {
    const found: string[] = [];
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      metafile: true,
      plugins: [forbidNodeBuiltins(found)],
      logLevel: 'silent',
    });
    expect(found).toEqual([]);
    // puppeteer-core is only a type dependency: the host hands the engine its Page objects.
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((p) => p.includes('puppeteer-core'))).toBe(false);
    expect(result.outputFiles[0]!.text).toContain('browser_navigate');
  });

  it('builds a dist that needs no Node built-in either (dependencies bundled into it included)', async () => {
    const found: string[] = [];
    await build({
      entryPoints: [fileURLToPath(new URL('../dist/index.js', import.meta.url))],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      plugins: [forbidNodeBuiltins(found)],
      logLevel: 'silent',
    });
    expect(found).toEqual([]);
  });

  it('notices a Node built-in when one sneaks in', async () => {
    const found: string[] = [];
    await build({
      stdin: { contents: "import { readFileSync } from 'node:fs'; export const f = readFileSync;", resolveDir: process.cwd() },
      bundle: true,
      write: false,
      platform: 'browser',
      plugins: [forbidNodeBuiltins(found)],
      logLevel: 'silent',
    });
    expect(found).toEqual(['node:fs (imported by <stdin>)']);
  });
});
