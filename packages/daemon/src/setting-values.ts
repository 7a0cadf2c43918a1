/**
 * How a setting of either CLI is declared and read: an option with its environment variable (BROWSERMCP_<FLAG>), the
 * options that name the server's own files or take a value per use, checked reads of the values wherever they came
 * from, and the --config file merged in under them. command-line.ts builds the shared settings on it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command, type OptionValueSource } from 'commander';
import { parseOriginPattern } from '@browsermcp/tools';
import { applySwitchVariables, BOOLEAN_WORDS, parseBooleanText } from './boolean-env.js';

export const ENV_PREFIX = 'BROWSERMCP_';
/** A bad setting (flag, environment variable or config file): the message names the flag and the fix; the CLIs exit 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** An option with its environment variable: "--viewport-size" reads BROWSERMCP_VIEWPORT_SIZE. */
export function settingOption(flags: string, description: string): Option {
  const option = new Option(flags, description);
  const long = option.long ?? option.name();
  return option.env(`${ENV_PREFIX}${long.replace(/^--/, '').replace(/-/g, '_').toUpperCase()}`);
}

/** A whole-number setting's bounds, declared with its option. */
export interface IntBounds {
  readonly min: number;
  readonly max: number;
}
const intBounds = new WeakMap<Option, IntBounds>();

/**
 * A whole-number option, its bounds and default declared with it (once): `--help` shows them, and reading it
 * (SettingValues.int) holds it to them, from the flag, its variable or the config file alike.
 */
export function intOption(flags: string, description: string, bounds: IntBounds & { default?: number | undefined }): Option {
  const option = settingOption(flags, `${description} (${bounds.min} to ${bounds.max})`);
  intBounds.set(option, { min: bounds.min, max: bounds.max });
  if (bounds.default !== undefined) option.default(String(bounds.default));
  return option;
}

/** The bounds an option was declared with (intOption), if it takes a whole number. */
export function boundsOf(option: Option): IntBounds | undefined {
  return intBounds.get(option);
}

const repeatable = new WeakSet<Option>();
const serverFiles = new WeakSet<Option>();

/**
 * Marks an option whose value names one of the server's own files or folders (keys, secrets, config, profile): no
 * tool ever reads what it names (local/protected-files.ts), whatever the roots.
 */
export function serverFile(option: Option): Option {
  serverFiles.add(option);
  return option;
}

/** What the program's server-file options name, as absolute paths (lists split): the files no tool may read. */
export function serverFilePaths(program: Command): string[] {
  const values = new SettingValues(program);
  return program.options.filter((o) => serverFiles.has(o)).flatMap((o) => values.list(o.attributeName()).map((p) => resolve(p)));
}

/** An option given once per value (values may hold commas, e.g. a header or a browser flag); it reads as a list. */
export function repeatableOption(flags: string, description: string): Option {
  const option = settingOption(flags, description).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  repeatable.add(option);
  return option;
}

/** Checked reads of a parsed program's values, wherever each came from (flag, environment, config file, default). */
export class SettingValues {
  readonly #program: Command;

  constructor(program: Command) {
    this.#program = program;
  }

  /** The flag users type for an attribute, for messages: "viewportSize" → "--viewport-size", "auth" → "--no-auth". */
  flag(key: string): string {
    const options = this.#program.options.filter((o) => o.attributeName() === key);
    // A pair (--sandbox / --no-sandbox) names the one that set the value.
    const option = options.length > 1 ? options.find((o) => o.negate === (this.raw(key) === false)) : options[0];
    return option?.long ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  }

  source(key: string): OptionValueSource | undefined {
    this.#option(key);
    return this.#program.getOptionValueSource(key);
  }

  /** Set on purpose (flag, environment or config file), not left at its default: a flag that cannot apply is refused. */
  given(key: string): boolean {
    const source = this.source(key);
    return source !== undefined && source !== 'default';
  }

  /** The option that declares `key`; a key no option of the program declares is a mistake in the code, said at once. */
  #option(key: string): Option {
    const option = this.#program.options.find((o) => o.attributeName() === key);
    if (option === undefined) throw new Error(`${key} is not a setting of ${this.#program.name()}: declare its option`);
    return option;
  }

  /** A setting's value as it came (see #option for a key no option declares). */
  raw(key: string): unknown {
    this.#option(key);
    return this.#program.getOptionValue(key);
  }

  str(key: string): string | undefined {
    const value = this.raw(key);
    return value === undefined || value === null || value === '' ? undefined : String(value);
  }

  /** A switch; a config file may say it in words too ("true", "off"…), and anything else is refused. */
  bool(key: string): boolean {
    const value = this.raw(key);
    if (value === undefined || value === null || typeof value === 'boolean') return value === true;
    const parsed = parseBooleanText(String(value));
    if (parsed === undefined) throw new ConfigError(`${this.flag(key)} must be yes or no (${BOOLEAN_WORDS}), got "${String(value)}".`);
    return parsed;
  }

  /** A comma-separated list; a list an old repeated spelling gave stays as it is. */
  list(key: string): string[] {
    const value = this.raw(key);
    const items = Array.isArray(value) ? value.map(String) : (this.str(key) ?? '').split(',');
    return items.map((s) => s.trim()).filter(Boolean);
  }

  /** A repeatable option's values: each one whole, commas and all. */
  many(key: string): string[] {
    const value = this.raw(key);
    if (value === undefined || value === null || value === '') return [];
    return Array.isArray(value) ? value.map(String) : [String(value)];
  }

  /** A whole number within the bounds its option was declared with (intOption); its default when left empty. */
  int(key: string): number | undefined {
    const option = this.#option(key);
    const bounds = boundsOf(option);
    if (bounds === undefined) throw new Error(`${key} is not declared as a whole number (intOption)`);
    const { min, max } = bounds;
    const text = this.str(key) ?? (option.defaultValue === undefined ? undefined : String(option.defaultValue));
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${this.flag(key)} must be a whole number from ${min} to ${max}, got "${text}".`);
    return n;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const text = this.str(key);
    if (text === undefined) return undefined;
    if (!(values as readonly string[]).includes(text)) throw new ConfigError(`${this.flag(key)} must be one of ${values.join(', ')}, got "${text}".`);
    return text as T;
  }

  /**
   * --allowed-origins / --blocked-origins entries, split on commas or semicolons (@playwright/mcp's separator) and
   * normalized: origins, origins on any port, host names, data: and blob:.
   */
  originPatterns(key: string): string[] {
    return this.list(key)
      .flatMap((item) => item.split(';'))
      .map((s) => s.trim())
      .filter(Boolean)
      .map((entry) => {
        try {
          return parseOriginPattern(entry);
        } catch (err) {
          throw new ConfigError(`${this.flag(key)}: ${(err as Error).message}`);
        }
      });
  }

  /** Web origins, normalized ("https://Example.com/" → "https://example.com"). */
  origins(key: string): string[] {
    return this.list(key).map((value) => {
      try {
        return new URL(value).origin.toLowerCase();
      } catch {
        throw new ConfigError(`${this.flag(key)}: "${value}" is not an origin such as https://example.com.`);
      }
    });
  }
}

/**
 * After commander's parse: the switches' variables read for what they say (boolean-env.ts), then the --config file
 * merged in: defaults < config file < environment < command line. Keys are the options' camelCase names; hidden
 * options (old spellings) are not keys.
 */
export function applySettingSources(program: Command, env: NodeJS.ProcessEnv = process.env): void {
  applySwitchVariables(program, env, (message) => new ConfigError(message));
  const values = new SettingValues(program);
  const path = values.str('config');
  if (path === undefined) return;
  const file = readConfigFile(path);
  const options = new Map(program.options.filter((o) => !o.hidden).map((o) => [o.attributeName(), o]));
  for (const [key, value] of Object.entries(file)) {
    const option = options.get(key);
    if (!option) throw new ConfigError(`--config: unknown option "${key}". Keys are the flags in camelCase, e.g. "viewportSize".`);
    const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
    if (!scalar(value) && !(Array.isArray(value) && value.every(scalar))) {
      throw new ConfigError(`--config: "${key}" must be a string, number, boolean or a list of them, as ${option.long ?? key} takes.`);
    }
    if (!values.given(key)) {
      // A repeatable option's list stays a list (its values may hold commas); any other list is the comma form.
      const flagValue = Array.isArray(value) && !repeatable.has(option) ? value.join(',') : value;
      program.setOptionValueWithSource(key, flagValue, 'config');
    }
  }
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`--config ${path}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`--config ${path}: not valid JSON (${(err as Error).message}).`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`--config ${path}: must be a JSON object of options, e.g. {"port": 3456}.`);
  }
  return parsed as Record<string, unknown>;
}
