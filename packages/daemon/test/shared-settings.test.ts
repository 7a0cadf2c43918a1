import { Command } from 'commander';
import { afterEach, expect, it, vi } from 'vitest';
import { applySettingSources, readSharedSettings, SettingValues, SHARED_SETTINGS, sharedOptions, type SharedTableKey } from '../src/command-line.js';
import { tableSpelledOutside, walkTable } from './helpers/walk-table.js';

// Walks the table of the shared settings that read as declared (command-line.ts SHARED_SETTINGS), as the tool
// settings' test walks theirs: each is an option of both CLIs with its variable and default, is reached alike from
// its flag, its variable and its config-file key, and arrives in SharedSettings under its one name.

afterEach(() => {
  vi.unstubAllEnvs();
});

const IDS = ['abcdefghijklmnopabcdefghijklmnop', 'ponmlkjihgfedcbaponmlkjihgfedcba'];
/** Values a setting checks beyond its kind: extension ids as Chrome writes them. */
const SAMPLES: Partial<Record<SharedTableKey, { text: string; value: unknown }>> = { extensionIds: { text: IDS.join(','), value: IDS } };

/** The shared settings alone, read as either CLI reads them. */
function read(argv: string[]) {
  const program = new Command('shared').exitOverride();
  for (const option of Object.values(sharedOptions({ port: { description: 'port' } }))) program.addOption(option);
  program.parse(argv, { from: 'user' });
  applySettingSources(program);
  return readSharedSettings(new SettingValues(program), {});
}

// Of the gateway too, through the same sharedOptions.
walkTable(SHARED_SETTINGS, read, SAMPLES, (key, flag) => expect(sharedOptions({ port: { description: '' } })[key].long).toBe(flag));

it('declares none of the shared table’s settings outside it: no flag spelled, no value read by hand', () => {
  expect(tableSpelledOutside(SHARED_SETTINGS)).toEqual([]);
});

it('keeps every use of a list setting given more than once, as one given comma-separated', () => {
  expect(read(['--file-roots', '/srv/a', '--file-roots', '/srv/b,/srv/c']).fileRoots).toEqual(['/srv/a', '/srv/b', '/srv/c']);
  expect(read(['--extension-id', IDS[0]!, '--extension-id', IDS[1]!]).extensionIds).toEqual(IDS);
});
