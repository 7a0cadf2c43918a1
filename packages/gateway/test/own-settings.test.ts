import { configFile, entryDefault, entrySample, spelledOutside } from '@browsermcp/testkit';
import { join } from 'node:path';
import { ConfigError } from '@browsermcp/daemon';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MODES, type Mode } from '../src/config/modes.js';
import { OWN_SETTING_KEYS, OWN_SETTINGS, ownSettingAttribute, type OwnSettingKey, type OwnSettingSpec } from '../src/config/own-settings.js';
import { buildProgram, resolveConfig, type GatewayConfig } from '../src/index.js';

// Walks the table of the gateway's own settings (src/config/own-settings.ts) as the daemon's test walks the tool
// settings: each is in --help with its variable, reached alike from its flag, its variable and its config-file key,
// arrives in the config under its one name, and is refused, naming it, where it cannot apply.

afterEach(() => {
  vi.unstubAllEnvs();
});

/** What a setting needs beside it to apply: its mode's flag. */
const MODE_FLAGS: Record<Mode, string[]> = {
  launch: [],
  cdp: ['--cdp-endpoint', 'http://127.0.0.1:9'],
  extension: ['--extension'],
  daemon: ['--daemon-url', 'ws://127.0.0.1:9/mcp'],
};

function context(key: OwnSettingKey): string[] {
  const spec: OwnSettingSpec = OWN_SETTINGS[key];
  const mode = spec.modes?.includes('launch') === false ? spec.modes[0]! : 'launch';
  // A setting of MCP over HTTP needs --port (over stdio it is refused).
  return [...MODE_FLAGS[mode], ...(spec.http ? ['--port', '0'] : [])];
}

function resolve(argv: string[]): GatewayConfig {
  return resolveConfig(buildProgram().exitOverride().parse(argv, { from: 'user' }), {});
}

describe.each(OWN_SETTING_KEYS)('%s', (key) => {
  const spec: OwnSettingSpec = OWN_SETTINGS[key];
  const flag = `--${spec.flag}`;
  const variable = `BROWSERMCP_${spec.flag.replace(/-/g, '_').toUpperCase()}`;
  const { text, value } = entrySample(spec);

  it('is an option of the program, listed in --help with its variable and default', () => {
    const option = buildProgram().options.find((o) => o.long === flag);
    expect(option?.attributeName()).toBe(ownSettingAttribute(key));
    expect(option?.envVar).toBe(variable);
    const block = buildProgram()
      .helpInformation()
      .split(/\n(?= {2}-)/)
      .map((b) => b.replace(/\s+/g, ' ').trim())
      .find((b) => b.startsWith(`${flag} `));
    expect(block).toContain(`env: ${variable}`);
    if (spec.kind === 'int' && spec.default !== undefined) expect(block).toContain(`(default: "${spec.default}"`);
  });

  it.each(['flag', 'variable', 'config file'] as const)('is set by its %s, under its one name in the config', (source) => {
    let argv = context(key);
    if (source === 'flag') argv = [...argv, ...(spec.kind === 'switch' ? [flag] : [flag, text])];
    if (source === 'variable') vi.stubEnv(variable, text);
    if (source === 'config file') argv = [...argv, '--config', configFile({ [ownSettingAttribute(key)]: spec.kind === 'switch' ? true : text })];
    expect(resolve(argv)[key]).toEqual(value);
  });

  it('has its default when not set', () => {
    const config = resolve(key === 'extension' ? [] : context(key));
    expect(config[key]).toEqual(entryDefault(spec));
  });

  it.runIf(spec.http !== undefined)('is refused over stdio, naming it: it is a setting of MCP over HTTP', () => {
    const argv = [...MODE_FLAGS.launch, ...(spec.kind === 'switch' ? [flag] : [flag, text])];
    expect(() => resolve(argv)).toThrow(ConfigError);
    expect(() => resolve(argv)).toThrow(flag);
  });

  it('is refused, naming it, where it cannot apply', () => {
    const elsewhere = (['launch', 'cdp', 'extension', 'daemon'] as const).find((m) => spec.modes !== undefined && !spec.modes.includes(m));
    if (elsewhere === undefined) return;
    const argv = [...MODE_FLAGS[elsewhere], ...(spec.kind === 'switch' ? [flag] : [flag, text])];
    expect(() => resolve(argv)).toThrow(ConfigError);
    expect(() => resolve(argv)).toThrow(flag);
  });
});

it('declares none of these settings outside the table: no flag spelled, no value read by hand', () => {
  const root = join(import.meta.dirname, '../../..');
  const flags = OWN_SETTING_KEYS.map((key) => OWN_SETTINGS[key].flag);
  // The modes are chosen before any value is read, by the flags that choose them (--extension is one).
  const choosers = new Set(MODES.map((m) => m.chosenBy));
  const attributes = OWN_SETTING_KEYS.map(ownSettingAttribute);
  expect(spelledOutside(root, flags, attributes, ['config/modes.ts'])).toEqual([]);
  expect(
    spelledOutside(
      root,
      [],
      attributes.filter((a) => !choosers.has(a)),
    ),
  ).toEqual([]);
});
