import { join } from 'node:path';
import { configFile, entryDefault, entrySample, spelledOutside } from '@browsermcp/testkit';
import { describe, expect, it, vi } from 'vitest';
import { buildDaemonProgram } from '../../src/cli-args.js';
import { entryAttribute, type SettingEntry } from '../../src/setting-table.js';

/**
 * Walks a table of settings the daemon takes (setting-table.ts): each entry is an option of the daemon with its
 * variable, is reached alike from its flag, its variable and its config-file key under its one name (`read` parses a
 * command line and gives the table's values), and has its default when not set. `samples`: values an entry checks
 * beyond its kind; `also`: more to check of an entry's option.
 */
export function walkTable<K extends string>(
  table: Readonly<Record<K, SettingEntry>>,
  read: (argv: string[]) => Readonly<Record<K, unknown>>,
  samples: Partial<Record<K, { text: string; value: unknown }>> = {},
  also?: (key: K, flag: string) => void,
): void {
  describe.each(Object.keys(table) as K[])('%s', (key) => {
    const entry: SettingEntry = table[key];
    // A switch on by default is written --no-<flag>, and its variable too.
    const flag = entry.kind === 'switch' && entry.default ? `--no-${entry.flag}` : `--${entry.flag}`;
    const variable = `BROWSERMCP_${flag.slice(2).replace(/-/g, '_').toUpperCase()}`;
    const { text, value } = samples[key] ?? entrySample(entry);

    it('is an option of the daemon with its variable', () => {
      const option = buildDaemonProgram().options.find((o) => o.long === flag);
      expect(option?.attributeName()).toBe(entryAttribute(entry));
      expect(option?.envVar).toBe(variable);
      also?.(key, flag);
    });

    it.each(['flag', 'variable', 'config file'] as const)('is set by its %s, under its one name', (source) => {
      let argv: string[] = [];
      if (source === 'flag') argv = entry.kind === 'switch' ? [flag] : [flag, text];
      // The variable of a --no-<flag> switch says yes to its "no".
      if (source === 'variable') vi.stubEnv(variable, entry.kind === 'switch' && entry.default ? 'true' : text);
      if (source === 'config file') argv = ['--config', configFile({ [entryAttribute(entry)]: entry.kind === 'switch' ? value : text })];
      expect(read(argv)[key]).toEqual(value);
    });

    it('has its default when not set', () => {
      expect(read([])[key]).toEqual(entryDefault(entry));
    });
  });
}

/** Where a table's flags are declared or its values read outside it, in every package's sources (testkit spelledOutside). */
export function tableSpelledOutside(table: Readonly<Record<string, SettingEntry>>): string[] {
  const entries = Object.values(table);
  return spelledOutside(
    join(import.meta.dirname, '../../../..'),
    entries.map((entry) => entry.flag),
    entries.map(entryAttribute),
  );
}
