import { readdirSync, readFileSync } from 'node:fs';
import { configFile, entryDefault, entrySample } from '@browsermcp/testkit';
import { join, relative } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildDaemonProgram } from '../src/cli-args.js';
import { applySettingSources, readSharedSettings, SettingValues, SHARED_SETTINGS, sharedOptions, type SharedTableKey } from '../src/command-line.js';
import { entryAttribute, type SettingEntry } from '../src/setting-table.js';

// Walks the table of the shared settings that read as declared (command-line.ts SHARED_SETTINGS), as the tool
// settings' test walks theirs: each is an option of both CLIs with its variable and default, is reached alike from
// its flag, its variable and its config-file key, and arrives in SharedSettings under its one name.

afterEach(() => {
  vi.unstubAllEnvs();
});

const KEYS = Object.keys(SHARED_SETTINGS) as SharedTableKey[];

/** The shared settings alone, read as either CLI reads them. */
function read(argv: string[]) {
  const program = new Command('shared').exitOverride();
  for (const option of Object.values(sharedOptions({ port: { description: 'port' } }))) program.addOption(option);
  program.parse(argv, { from: 'user' });
  applySettingSources(program);
  return readSharedSettings(new SettingValues(program), {});
}

describe.each(KEYS)('%s', (key) => {
  const entry: SettingEntry = SHARED_SETTINGS[key];
  const flag = `--${entry.flag}`;
  const variable = `BROWSERMCP_${entry.flag.replace(/-/g, '_').toUpperCase()}`;
  const { text, value } = entrySample(entry);

  it('is an option of the daemon with its variable, and of the gateway through the same sharedOptions', () => {
    const option = buildDaemonProgram().options.find((o) => o.long === flag);
    expect(option?.attributeName()).toBe(entryAttribute(entry));
    expect(option?.envVar).toBe(variable);
    expect(sharedOptions({ port: { description: '' } })[key].long).toBe(flag);
  });

  it.each(['flag', 'variable', 'config file'] as const)('is set by its %s, under its one name', (source) => {
    let argv: string[] = [];
    if (source === 'flag') argv = entry.kind === 'switch' ? [flag] : [flag, text];
    if (source === 'variable') vi.stubEnv(variable, text);
    if (source === 'config file') argv = ['--config', configFile({ [entryAttribute(entry)]: entry.kind === 'switch' ? true : text })];
    expect(read(argv)[key]).toEqual(value);
  });

  it('has its default when not set', () => {
    expect(read([])[key]).toEqual(entryDefault(entry));
  });
});

it('declares none of the shared table’s settings outside it: no flag spelled, no value read by hand', () => {
  const root = join(import.meta.dirname, '../../..');
  const table = join(root, 'packages/daemon/src/command-line.ts');
  const files = ['packages/daemon/src', 'packages/gateway/src']
    .flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(root, dir, f)),
    )
    .filter((f) => f !== table);
  const flags = KEYS.map((key) => SHARED_SETTINGS[key].flag).join('|');
  const attributes = KEYS.map((key) => entryAttribute(SHARED_SETTINGS[key])).join('|');
  // An option declared (its signature, or a switch made) or a value read by its attribute; a message may name a flag.
  const declared = new RegExp(`['"\`]--(${flags}) <|(\\w*[oO]ption|opt)\\(\\s*['"\`]--(${flags})['"\`]`);
  const read = new RegExp(`\\.(int|str|bool|raw|list|many)\\('(${attributes})'`);
  const offenders = files.filter((file) => {
    const text = readFileSync(file, 'utf8');
    return declared.test(text) || read.test(text);
  });
  expect(offenders.map((f) => relative(root, f))).toEqual([]);
});

it('keeps every use of a list setting given more than once, as one given comma-separated', () => {
  expect(read(['--file-roots', '/srv/a', '--file-roots', '/srv/b,/srv/c']).fileRoots).toEqual(['/srv/a', '/srv/b', '/srv/c']);
  const ids = ['abcdefghijklmnopabcdefghijklmnop', 'ponmlkjihgfedcbaponmlkjihgfedcba'];
  expect(read(['--extension-id', ids[0]!, '--extension-id', ids[1]!]).extensionIds).toEqual(ids);
});
