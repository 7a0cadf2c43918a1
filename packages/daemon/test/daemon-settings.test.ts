import { afterEach, expect, it, vi } from 'vitest';
import { buildDaemonProgram } from '../src/cli-args.js';
import { applySettingSources, SettingValues } from '../src/command-line.js';
import { DAEMON_SETTINGS } from '../src/daemon-settings.js';
import { readTable } from '../src/setting-table.js';
import { tableSpelledOutside, walkTable } from './helpers/walk-table.js';

// Walks the table of browsermcp-daemon's own settings (src/daemon-settings.ts) as the shared and tool settings' tests
// walk theirs: each is an option of the daemon with its variable, reached alike from its flag, its variable and its
// config-file key, under its one name.

afterEach(() => {
  vi.unstubAllEnvs();
});

function read(argv: string[]) {
  const program = buildDaemonProgram().exitOverride();
  program.parse(argv, { from: 'user' });
  applySettingSources(program);
  return readTable(new SettingValues(program), DAEMON_SETTINGS);
}

walkTable(DAEMON_SETTINGS, read);

it('declares none of the daemon’s own settings outside its table: no flag spelled, no value read by hand', () => {
  expect(tableSpelledOutside(DAEMON_SETTINGS)).toEqual([]);
});
