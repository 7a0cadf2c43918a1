import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { parseBooleanText } from '../src/boolean-env.js';
import { buildDaemonProgram, parseCli } from '../src/cli-args.js';
import { applySettingSources, ConfigError } from '../src/command-line.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

it('reads yes and no in the usual words, any case, and nothing else', () => {
  for (const yes of ['true', 'TRUE', '1', 'yes', 'on', ' On ']) expect(parseBooleanText(yes)).toBe(true);
  for (const no of ['false', 'False', '0', 'no', 'off', ' OFF']) expect(parseBooleanText(no)).toBe(false);
  for (const other of ['', 'y', 'n', '2', 'enabled', 'truee']) expect(parseBooleanText(other)).toBeUndefined();
});

const switches = buildDaemonProgram().options.filter((o) => !o.required && !o.optional && o.envVar);

it.each(switches.map((o) => [o.envVar!, o] as const))("the daemon's %s means what it says, both ways, and refuses anything else", (name, option) => {
  const attribute = option.attributeName();
  const read = (text: string) => {
    vi.stubEnv(name, text);
    const program = buildDaemonProgram().exitOverride().parse([], { from: 'user' });
    applySettingSources(program);
    return program.getOptionValue(attribute) as unknown;
  };
  const pair = switches.filter((o) => o.attributeName() === attribute).length > 1;
  for (const yes of ['true', '1', 'yes', 'on']) expect(read(yes), `${name}=${yes}`).toBe(!option.negate);
  for (const no of ['false', '0', 'no', 'off']) expect(read(no), `${name}=${no}`).toBe(pair ? option.negate : option.negate ? true : undefined);
  expect(() => read('maybe')).toThrow(ConfigError);
  expect(() => read('maybe')).toThrow(`${name}="maybe" is not a yes or no`);
});

it('keeps the local browser when BROWSERMCP_NO_LOCAL says false, and asks NATS for credentials when BROWSERMCP_NATS_ALLOW_ANONYMOUS does', () => {
  vi.stubEnv('BROWSERMCP_NO_LOCAL', 'false');
  const serve = parseCli([], {});
  expect(serve.kind === 'serve' && serve.options.local).toBeTruthy();
  vi.stubEnv('BROWSERMCP_NO_LOCAL', '0');
  const again = parseCli([], {});
  expect(again.kind === 'serve' && again.options.local).toBeTruthy();
  const cluster = ['--nats', 'nats://127.0.0.1:4222', '--instance-id', 'd1'];
  const anonymous = () => {
    const command = parseCli(cluster, {});
    return command.kind === 'serve' ? command.options.cluster?.allowAnonymous : undefined;
  };
  vi.stubEnv('BROWSERMCP_NATS_ALLOW_ANONYMOUS', 'true');
  expect(anonymous()).toBe(true);
  vi.stubEnv('BROWSERMCP_NATS_ALLOW_ANONYMOUS', 'false');
  expect(anonymous()).toBeUndefined();
});

it('reads a config file switch in the same words, and refuses one that is not a yes or no, naming the flag', () => {
  const file = (content: unknown) => {
    const path = join(mkdtempSync(join(tmpdir(), 'bmcp-switch-config-')), 'config.json');
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  const headless = (content: unknown) => {
    const command = parseCli(['--config', file(content)], { DISPLAY: ':0' });
    return command.kind === 'serve' ? command.options.local?.headless : undefined;
  };
  expect(headless({ headless: 'on' })).toBe(true);
  expect(headless({ headless: 'off' })).toBe(false);
  expect(headless({ headless: false })).toBe(false);
  expect(() => headless({ headless: 'sometimes' })).toThrow('--headless must be yes or no');
});
