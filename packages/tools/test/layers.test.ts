import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The engine's folders are layers: engine/ (page-level pieces) knows nothing of tabs or sessions, tab/ nothing of
// sessions, session/ nothing of the tools it runs; the tools use all three, and the catalogue (catalog.ts, with
// call.ts and index.ts) sits above the tools it lists. An import the wrong way fails here, before it becomes a cycle.

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const BELOW: Record<string, string[]> = { engine: ['tab', 'session', 'tools'], tab: ['session', 'tools'], session: ['tools'] };
/** The top: modules of src/ itself that no folder below may import. */
const TOP = ['catalog', 'call', 'index'];

describe('the engine in layers', () => {
  it('no folder imports the catalogue above it (catalog.ts, call.ts, index.ts)', () => {
    const wrong: string[] = [];
    for (const layer of ['engine', 'tab', 'session', 'tools', 'injected']) {
      for (const file of readdirSync(join(SRC, layer))) {
        const text = readFileSync(join(SRC, layer, file), 'utf8');
        for (const [, spec] of text.matchAll(/from '\.\.\/([a-z-]+)\.js'/g)) if (TOP.includes(spec!)) wrong.push(`${layer}/${file} imports ../${spec}.js`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('engine/ imports no tab/ or session/ module, tab/ no session/ module, session/ no tool', () => {
    const wrong: string[] = [];
    for (const [layer, forbidden] of Object.entries(BELOW)) {
      for (const file of readdirSync(join(SRC, layer))) {
        const text = readFileSync(join(SRC, layer, file), 'utf8');
        for (const [, spec] of text.matchAll(/from '(\.\.\/[a-z-]+)\//g)) {
          if (forbidden.includes(spec!.slice(3))) wrong.push(`${layer}/${file} imports ${spec}/`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
