/**
 * Settings that read as they are declared — a whole number, a switch, a value, a list — kept in tables: each entry's
 * key is the setting's one name from the config to where it is used, its flag gives the option (and through it the
 * environment variable and the config-file key, the flag in camelCase), and its default, bounds and help are written
 * there once. The options, the checked reads and the value types (`TableValues`) all come from the table. The shared
 * settings (command-line.ts) and the gateway's own use it; the tool settings have the protocol's table.
 */
import { resolve } from 'node:path';
import type { Option } from 'commander';
import { intOption, serverFile, settingOption, type SettingValues } from './setting-values.js';

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

/** On or off: off by default, or on (`default: true`, written `--no-<flag>`). */
export interface SwitchEntry extends Declared {
  readonly kind: 'switch';
  readonly default?: boolean;
}

/** A value used as given. */
export interface TextEntry extends Declared {
  readonly kind: 'text';
  readonly arg: string;
  readonly default?: string;
}

/** Comma-separated values; given more than once, every use counts. */
export interface ListEntry extends Declared {
  readonly kind: 'list';
  readonly arg: string;
}

/** One of a few words. */
export interface WordsEntry extends Declared {
  readonly kind: 'words';
  readonly arg: string;
  readonly values: readonly [string, ...string[]];
  readonly default: string;
}

/**
 * A file or folder, read as an absolute path. `default` may be worked out when the options are made (from the
 * environment); `serverFile`: it names one of the server's own files, which no tool ever reads (serverFile()).
 */
export interface PathEntry extends Declared {
  readonly kind: 'path';
  readonly arg: string;
  readonly default?: string | (() => string);
  readonly serverFile?: boolean;
}

export type SettingEntry = IntEntry | SwitchEntry | TextEntry | ListEntry | WordsEntry | PathEntry;

/** A setting's value: a number or text with a default is always there. */
export type EntryValue<E> = E extends { kind: 'int'; default: number }
  ? number
  : E extends { kind: 'int' }
    ? number | undefined
    : E extends { kind: 'switch' }
      ? boolean
      : E extends { kind: 'list' }
        ? string[]
        : E extends { kind: 'words'; values: readonly (infer V)[] }
          ? V
          : E extends { default: string | (() => string) }
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
      return settingOption(entry.default ? `--no-${entry.flag}` : `--${entry.flag}`, help);
    case 'text': {
      const option = settingOption(`--${entry.flag} <${entry.arg}>`, help);
      return entry.default === undefined ? option : option.default(entry.default);
    }
    case 'list':
      // Repeated, every use counts (commander would keep only the last one, silently).
      return settingOption(`--${entry.flag} <${entry.arg}>`, help).argParser((value: string, previous: string | undefined) =>
        previous ? `${previous},${value}` : value,
      );
    case 'words':
      return settingOption(`--${entry.flag} <${entry.arg}>`, help).default(entry.default);
    case 'path': {
      const option = settingOption(`--${entry.flag} <${entry.arg}>`, help);
      if (entry.default !== undefined) option.default(typeof entry.default === 'function' ? entry.default() : entry.default);
      return entry.serverFile ? serverFile(option) : option;
    }
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
      // One on by default stays on until its attribute says otherwise (false from --no-<flag>, or a word).
      return entry.default ? v.raw(attribute) === undefined || v.bool(attribute) : v.bool(attribute);
    case 'text':
      return v.str(attribute) ?? entry.default;
    case 'list':
      return v.list(attribute);
    case 'words':
      return v.oneOf(attribute, entry.values) ?? entry.default;
    case 'path': {
      const path = v.str(attribute) ?? (typeof entry.default === 'function' ? entry.default() : entry.default);
      return path === undefined ? undefined : resolve(path);
    }
  }
}

/** A table's values, read and checked. */
export function readTable<T extends Record<string, SettingEntry>>(v: SettingValues, table: T): TableValues<T> {
  return Object.fromEntries(Object.entries(table).map(([key, entry]) => [key, readEntry(v, entry)])) as TableValues<T>;
}
