/**
 * Settings that read as they are declared — a whole number, a switch, a value, a list — kept in tables: each entry's
 * key is the setting's one name from the config to where it is used, its flag gives the option (and through it the
 * environment variable and the config-file key, the flag in camelCase), and its default, bounds and help are written
 * there once. The options, the checked reads and the value types (`TableValues`) all come from the table. The shared
 * settings (command-line.ts) and the gateway's own use it; the tool settings have the protocol's table.
 */
import type { Option } from 'commander';
import { intOption, settingOption, type SettingValues } from './setting-values.js';

interface Declared {
  /** The long flag without its dashes. */
  readonly flag: string;
  /** `--help`'s words; a number's bounds and a default are added to them. */
  readonly help: string;
}

/** A whole number within bounds; `scale` turns the flag's unit into the setting's (seconds → ms: 1000). */
export interface IntEntry extends Declared {
  readonly kind: 'int';
  readonly arg: string;
  readonly min: number;
  readonly max: number;
  readonly default?: number;
  readonly scale?: number;
}

/** On or off; off by default. */
export interface SwitchEntry extends Declared {
  readonly kind: 'switch';
}

/** A value used as given. */
export interface TextEntry extends Declared {
  readonly kind: 'text';
  readonly arg: string;
  readonly default?: string;
}

/** Comma-separated values. */
export interface ListEntry extends Declared {
  readonly kind: 'list';
  readonly arg: string;
}

export type SettingEntry = IntEntry | SwitchEntry | TextEntry | ListEntry;

/** A setting's value: a number or text with a default is always there. */
export type EntryValue<E> = E extends { kind: 'int'; default: number }
  ? number
  : E extends { kind: 'int' }
    ? number | undefined
    : E extends { kind: 'switch' }
      ? boolean
      : E extends { kind: 'list' }
        ? string[]
        : E extends { default: string }
          ? string
          : string | undefined;

/** The values of a table's settings, by key. */
export type TableValues<T extends Record<string, SettingEntry>> = { -readonly [K in keyof T]: EntryValue<T[K]> };

/** An entry's commander attribute (its config-file key): the flag in camelCase ("grace-period" → "gracePeriod"). */
export function entryAttribute(entry: { readonly flag: string }): string {
  return entry.flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** A fresh option for an entry (an Option belongs to one program); `help` where a program says it in its own words. */
export function entryOption(entry: SettingEntry, help = entry.help): Option {
  switch (entry.kind) {
    case 'int':
      return intOption(`--${entry.flag} <${entry.arg}>`, help, entry);
    case 'switch':
      return settingOption(`--${entry.flag}`, help);
    case 'text': {
      const option = settingOption(`--${entry.flag} <${entry.arg}>`, help);
      return entry.default === undefined ? option : option.default(entry.default);
    }
    case 'list':
      return settingOption(`--${entry.flag} <${entry.arg}>`, help);
  }
}

/** Fresh options for a table's entries, by key; `help` gives a program's own words for some of them. */
export function tableOptions<T extends Record<string, SettingEntry>>(
  table: T,
  help: Partial<Record<keyof T, string | undefined>> = {},
): Readonly<Record<keyof T, Option>> {
  return Object.fromEntries(Object.entries(table).map(([key, entry]) => [key, entryOption(entry, help[key] ?? entry.help)])) as Record<keyof T, Option>;
}

/** An entry's value, read and checked (a number within its bounds, in the setting's unit). */
export function readEntry(v: SettingValues, entry: SettingEntry): number | boolean | string | string[] | undefined {
  const attribute = entryAttribute(entry);
  switch (entry.kind) {
    case 'int': {
      const n = v.int(attribute);
      return n === undefined ? undefined : n * (entry.scale ?? 1);
    }
    case 'switch':
      return v.bool(attribute);
    case 'text':
      return v.str(attribute) ?? entry.default;
    case 'list':
      return v.list(attribute);
  }
}

/** A table's values, read and checked. */
export function readTable<T extends Record<string, SettingEntry>>(v: SettingValues, table: T): TableValues<T> {
  return Object.fromEntries(Object.entries(table).map(([key, entry]) => [key, readEntry(v, entry)])) as TableValues<T>;
}
