import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The engine's folders are layers: engine/ (page-level pieces) knows nothing of tabs or sessions, tab/ nothing of
// sessions; session/ and the tools above use both. An import the wrong way fails here, before it becomes a cycle.

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const BELOW: Record<string, string[]> = { engine: ['tab', 'session', 'tools'], tab: ['session', 'tools'] };

describe('the engine in layers', () => {
  it('engine/ imports no tab/ or session/ module, and tab/ no session/ module', () => {
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
