import { configFile, spelledOutside } from '@browsermcp/testkit';
import { join } from 'node:path';
import {
  sessionSettingsSchema,
  TOOL_SETTING_DEFAULTS,
  TOOL_SETTING_KEYS,
  TOOL_SETTINGS,
  toolSettingFlag,
  type ToolSettingKey,
  type ToolSettingSpec,
} from '@browsermcp/protocol';
import { defaultSessionConfig, ENGINE_TOOL_SETTING_KEYS } from '@browsermcp/tools';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseCli, type CliCommand } from '../src/cli-args.js';
import { toolSettingAttribute } from '../src/tool-options.js';

// Walks the table of tool settings (protocol/src/tool-settings.ts): each one is reached the same way from its flag,
// its variable and its config-file key, checked with the same bounds on the command line and on the wire, and arrives
// in the engine under its one name.

afterEach(() => {
  vi.unstubAllEnvs();
});

function serve(argv: string[]): Extract<CliCommand, { kind: 'serve' }> {
  const command = parseCli(argv, {});
  if (command.kind !== 'serve') throw new Error(`expected serve, got ${command.kind}`);
  return command;
}

/** A value other than the default, as typed on the command line and as read. */
function sample(spec: ToolSettingSpec): { text: string; value: unknown } {
  switch (spec.kind) {
    case 'int': {
      const n = spec.min === spec.default ? spec.max : spec.min;
      return { text: String(n), value: n };
    }
    case 'words': {
      const word = spec.values.find((w) => w !== spec.default)!;
      return { text: word, value: word };
    }
    case 'switch':
      return { text: String(!spec.default), value: !spec.default };
    case 'origins':
      return { text: 'https://a.example', value: ['https://a.example'] };
    case 'name':
      return { text: 'data-qa', value: 'data-qa' };
  }
}

/** A value both the command line and the wire refuse. */
function outOfBounds(spec: ToolSettingSpec): { text: string; value: unknown } | undefined {
  switch (spec.kind) {
    case 'int':
      return { text: String(spec.max + 1), value: spec.max + 1 };
    case 'words':
      return { text: 'bogus', value: 'bogus' };
    case 'name':
      return { text: '1 bad', value: '1 bad' };
    default:
      return undefined;
  }
}

function commandLine(key: ToolSettingKey): string[] {
  const spec: ToolSettingSpec = TOOL_SETTINGS[key];
  if (spec.kind === 'switch') return [toolSettingFlag(key)];
  return [`--${spec.flag}`, sample(spec).text];
}

describe.each(TOOL_SETTING_KEYS)('%s', (key) => {
  const spec: ToolSettingSpec = TOOL_SETTINGS[key];
  const flag = toolSettingFlag(key);
  const { value } = sample(spec);
  const variable = `BROWSERMCP_${flag.replace(/^--/, '').replace(/-/g, '_').toUpperCase()}`;

  it('is listed in --help with its variable and default', () => {
    const help = parseCli(['--help']);
    if (help.kind !== 'help') throw new Error('no help');
    const text = help.text.replace(/\s+/g, ' ');
    expect(text).toContain(flag);
    expect(text).toContain(variable);
    if (spec.kind !== 'switch' && spec.kind !== 'origins') expect(text).toContain(`(default: "${spec.default}"`);
  });

  it('defaults to the same value in the CLI, the engine and the table', () => {
    const { options } = serve([]);
    expect(options.sessionSettings?.[key]).toBeUndefined();
    if ((ENGINE_TOOL_SETTING_KEYS as string[]).includes(key)) {
      const engineKey = key as (typeof ENGINE_TOOL_SETTING_KEYS)[number];
      expect(defaultSessionConfig[engineKey]).toEqual(TOOL_SETTING_DEFAULTS[key]);
      // The daemon's own browser: every setting, a navigation's moved to fit the default command timeout.
      if (key !== 'navigationTimeoutMs') expect(options.local?.toolConfig?.[engineKey]).toEqual(TOOL_SETTING_DEFAULTS[key]);
    }
  });

  it.each(['flag', 'variable', 'config file'] as const)('is set by its %s, under one name to the engine', (source) => {
    let argv: string[] = [];
    if (source === 'flag') argv = commandLine(key);
    if (source === 'variable') vi.stubEnv(variable, spec.kind === 'switch' ? 'true' : sample(spec).text);
    if (source === 'config file') argv = ['--config', configFile({ [toolSettingAttribute(key)]: spec.kind === 'switch' ? value : sample(spec).text })];
    const { options } = serve(argv);
    expect(options.sessionSettings?.[key]).toEqual(value);
    const engine = options.local?.toolConfig;
    if ((ENGINE_TOOL_SETTING_KEYS as string[]).includes(key)) expect(engine?.[key as (typeof ENGINE_TOOL_SETTING_KEYS)[number]]).toEqual(value);
    else if (spec.kind === 'origins') expect(engine?.checkUrl).toBeTypeOf('function');
    else expect([engine?.includeSnapshot, engine?.snapshotChanges]).not.toEqual([true, true]);
    expect(sessionSettingsSchema.safeParse({ [key]: value }).success).toBe(true);
  });

  it('refuses a value out of its bounds alike on the command line and on the wire', () => {
    const bad = outOfBounds(spec);
    if (!bad) return;
    expect(() => serve([`--${spec.flag}`, bad.text])).toThrow(flag);
    expect(sessionSettingsSchema.safeParse({ [key]: bad.value }).success).toBe(false);
  });
});

it.each([
  ['off', false],
  ['no', false],
  ['0', false],
  [false, false],
  ['on', true],
  [true, true],
])('reads a switch that is on by default (--no-webmcp) as the config file says it: %j', (word, on) => {
  expect(serve(['--config', configFile({ webmcp: word })]).options.sessionSettings?.webmcp).toBe(on);
});

it('declares no tool setting outside its table: no flag spelled, no value read by hand', () => {
  const root = join(import.meta.dirname, '../../..');
  const flags = TOOL_SETTING_KEYS.map((key) => TOOL_SETTINGS[key].flag);
  expect(spelledOutside(root, flags, TOOL_SETTING_KEYS.map(toolSettingAttribute))).toEqual([]);
});
