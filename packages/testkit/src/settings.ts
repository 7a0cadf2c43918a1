import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** A --config file holding `content` (JSON, or the text as given), in a fresh temporary folder. */
export function configFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'bmcp-config-')), 'config.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** A setting of the daemon's table kinds (setting-table.ts), as the tests that walk a table see one. */
export type TableEntry =
  | { readonly kind: 'int'; readonly min: number; readonly max: number; readonly default?: number; readonly scale?: number }
  | { readonly kind: 'switch'; readonly default?: boolean }
  | { readonly kind: 'text'; readonly default?: string }
  | { readonly kind: 'list' }
  | { readonly kind: 'words'; readonly values: readonly string[]; readonly default: string }
  | { readonly kind: 'path'; readonly default?: string | (() => string) };

/** A value other than an entry's default, as typed (flag, variable, config file) and as the setting then holds it. */
export function entrySample(entry: TableEntry): { text: string; value: unknown } {
  switch (entry.kind) {
    case 'int': {
      const n = entry.min === entry.default ? entry.max : entry.min;
      return { text: String(n), value: n * (entry.scale ?? 1) };
    }
    case 'switch':
      return { text: String(!entry.default), value: !entry.default };
    case 'text':
      return { text: '127.0.0.2', value: '127.0.0.2' };
    case 'list':
      return { text: '/srv/a,/srv/b', value: ['/srv/a', '/srv/b'] };
    case 'words': {
      const word = entry.values.find((w) => w !== entry.default)!;
      return { text: word, value: word };
    }
    case 'path':
      return { text: '/srv/bmcp/setting', value: '/srv/bmcp/setting' };
  }
}

/** What an entry holds when nothing sets it. */
export function entryDefault(entry: TableEntry): unknown {
  switch (entry.kind) {
    case 'int':
      return entry.default === undefined ? undefined : entry.default * (entry.scale ?? 1);
    case 'switch':
      return entry.default ?? false;
    case 'text':
      return entry.default;
    case 'list':
      return [];
    case 'words':
      return entry.default;
    case 'path': {
      const path = typeof entry.default === 'function' ? entry.default() : entry.default;
      return path === undefined ? undefined : resolve(path);
    }
  }
}
