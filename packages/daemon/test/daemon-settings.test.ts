import { join } from 'node:path';
import { configFile, entryDefault, entrySample, spelledOutside } from '@browsermcp/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildDaemonProgram } from '../src/cli-args.js';
import { applySettingSources, SettingValues } from '../src/command-line.js';
import { DAEMON_SETTINGS, type DaemonSettingKey } from '../src/daemon-settings.js';
import { entryAttribute, readTable, type SettingEntry } from '../src/setting-table.js';

// Walks the table of browsermcp-daemon's own settings (src/daemon-settings.ts) as the shared and tool settings' tests
// walk theirs: each is an option of the daemon with its variable, reached alike from its flag, its variable and its
// config-file key, under its one name.

afterEach(() => {
  vi.unstubAllEnvs();
});

const KEYS = Object.keys(DAEMON_SETTINGS) as DaemonSettingKey[];

function read(argv: string[]) {
  const program = buildDaemonProgram().exitOverride();
  program.parse(argv, { from: 'user' });
  applySettingSources(program);
  return readTable(new SettingValues(program), DAEMON_SETTINGS);
}

describe.each(KEYS)('%s', (key) => {
  const entry: SettingEntry = DAEMON_SETTINGS[key];
  // A switch on by default is written --no-<flag>, and its variable too.
  const flag = entry.kind === 'switch' && entry.default ? `--no-${entry.flag}` : `--${entry.flag}`;
  const variable = `BROWSERMCP_${flag.slice(2).replace(/-/g, '_').toUpperCase()}`;
  const { text, value } = entrySample(entry);

  it('is an option of the daemon with its variable', () => {
    const option = buildDaemonProgram().options.find((o) => o.long === flag);
    expect(option?.attributeName()).toBe(entryAttribute(entry));
    expect(option?.envVar).toBe(variable);
  });

  it.each(['flag', 'variable', 'config file'] as const)('is set by its %s, under its one name', (source) => {
    let argv: string[] = [];
    if (source === 'flag') argv = entry.kind === 'switch' ? [flag] : [flag, text];
    // The variable of --no-local says yes to "no local browser".
    if (source === 'variable') vi.stubEnv(variable, entry.kind === 'switch' && entry.default ? 'true' : text);
    if (source === 'config file') argv = ['--config', configFile({ [entryAttribute(entry)]: entry.kind === 'switch' ? value : text })];
    expect(read(argv)[key]).toEqual(value);
  });

  it('has its default when not set', () => {
    expect(read([])[key]).toEqual(entryDefault(entry));
  });
});

it('declares none of the daemon’s own settings outside its table: no flag spelled, no value read by hand', () => {
  const root = join(import.meta.dirname, '../../..');
  const flags = KEYS.map((key) => DAEMON_SETTINGS[key].flag);
  expect(
    spelledOutside(
      root,
      flags,
      KEYS.map((key) => entryAttribute(DAEMON_SETTINGS[key])),
    ),
  ).toEqual([]);
});
