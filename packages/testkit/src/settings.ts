import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

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

/**
 * The source files under `root`'s packages and apps (their `src`) that declare one of `flags` as an option (its
 * signature `'--flag <x>'`, `'-f, --flag [x]'`, or a switch made with `option('--flag')`, `--no-` forms too) or read
 * one of `attributes`' values (`int('key')`, `str`, `bool`, `raw`, `list`, `many`, `oneOf`, `origins`,
 * `originPatterns`, a helper of that name or a method), relative to `root`: the places a setting is spelled outside
 * its table. A message may name a flag; `given('key')` asks only whether it was set.
 */
export function spelledOutside(root: string, flags: readonly string[], attributes: readonly string[], exclude: readonly string[] = []): string[] {
  const names = flags.join('|');
  const declared = new RegExp(`['"\`](?:-\\w, )?--(?:no-)?(?:${names}) [<\\[]|(?:\\w*[oO]ption|opt)\\(\\s*['"\`](?:-\\w, )?--(?:no-)?(?:${names})['"\`]`);
  const read = new RegExp(`\\b(?:int|str|bool|raw|list|many|oneOf|origins|originPatterns)\\(\\s*['"\`](?:${attributes.join('|')})['"\`]`);
  const sources = ['packages', 'apps'].flatMap((top) =>
    readdirSync(join(root, top)).flatMap((name) => {
      const src = join(root, top, name, 'src');
      if (!existsSync(src)) return [];
      return readdirSync(src, { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|tsx|mts)$/.test(f) && !f.endsWith('generated.ts'))
        .map((f) => join(src, f));
    }),
  );
  return sources
    .filter((file) => !exclude.some((path) => file.endsWith(path)))
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return declared.test(text) || read.test(text);
    })
    .map((file) => relative(root, file));
}
