import { configFile } from '@browsermcp/testkit';
import { afterEach, expect, it, vi } from 'vitest';
import { buildDaemonProgram, parseCli, type CliCommand } from '../src/cli-args.js';
import { ConfigError, DEFAULT_OUTPUT_DIR, SettingValues, sharedOptions } from '../src/command-line.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The daemon's command line as the CLI reads it, on a machine without a display unless `env` has one. */
function serve(argv: string[], env: NodeJS.ProcessEnv = {}): Extract<CliCommand, { kind: 'serve' }> {
  const command = parseCli(argv, env);
  if (command.kind !== 'serve') throw new Error(`expected serve, got ${command.kind}`);
  return command;
}

it('has every shared setting, under the same flag as the gateway', () => {
  const flags = buildDaemonProgram().options.map((o) => o.long);
  for (const option of Object.values(sharedOptions({ port: { description: '' } }))) expect(flags).toContain(option.long);
});

it('defaults to a 90 s command timeout, an output directory in the temp dir, and headless without a display', () => {
  const { options } = serve([]);
  expect(options.commandTimeoutMs).toBe(90_000);
  expect(options.gracePeriodMs).toBe(300_000);
  expect(options.port).toBe(8765);
  expect(options.local).toMatchObject({ outputDir: DEFAULT_OUTPUT_DIR, headless: true, viewport: { width: 1280, height: 720 }, fileRoots: [], caps: [] });
  expect(serve([], { DISPLAY: ':0' }).options.local?.headless).toBe(false);
});

it('reads the gateway spellings: --headless, --viewport-size (or none), --file-roots, --allowed-hosts and --cors-origins lists', () => {
  const { options, deprecations } = serve(
    [
      '--headless',
      '--viewport-size',
      'none',
      '--file-roots',
      '/a, /b',
      '--allowed-hosts',
      'Relay.Example,other.example',
      '--cors-origins',
      'https://App.example.com/',
    ],
    { DISPLAY: ':0' },
  );
  expect(deprecations).toEqual([]);
  expect(options.local).toMatchObject({ headless: true, viewport: null, fileRoots: ['/a', '/b'] });
  expect(options.allowedHosts).toEqual(['relay.example', 'other.example']);
  expect(options.corsOrigins).toEqual(['https://app.example.com']);
});

it('still takes the old daemon spellings, with one deprecation line each naming the new one', () => {
  const { options, deprecations } = serve([
    '--headed',
    '--viewport',
    '800x600',
    '--file-root',
    '/a',
    '--file-root',
    '/b,c',
    '--allowed-host',
    'Relay.Example',
    '--allowed-origin',
    'https://app.example.com',
    '--allowed-origin',
    'https://other.example.com',
  ]);
  // --headed still forces a window, even without a display, as it did.
  expect(options.local).toMatchObject({ headless: false, viewport: { width: 800, height: 600 }, fileRoots: ['/a', '/b,c'] });
  expect(options.allowedHosts).toEqual(['relay.example']);
  expect(options.corsOrigins).toEqual(['https://app.example.com', 'https://other.example.com']);
  expect(deprecations).toEqual([
    '--headed is deprecated and will be removed in the next release: the browser is headed by default when a display exists (--headless hides it); drop --headed',
    '--viewport is deprecated and will be removed in the next release: use --viewport-size',
    '--file-root is deprecated and will be removed in the next release: use --file-roots (one comma-separated list)',
    '--allowed-host is deprecated and will be removed in the next release: use --allowed-hosts (one comma-separated list)',
    '--allowed-origin is deprecated and will be removed in the next release: use --cors-origins (one comma-separated list)',
  ]);
});

it('takes the last of a single-valued old spelling given twice, as before, with one note', () => {
  const { options, deprecations } = serve(['--viewport', '800x600', '--viewport', 'none']);
  expect(options.local?.viewport).toBeNull();
  expect(deprecations).toHaveLength(1);
});

it('checks a value given with an old spelling as it checks the new one, naming the new flag', () => {
  expect(() => serve(['--viewport', 'big'])).toThrow('--viewport-size must look like 1280x720, got "big".');
  expect(() => serve(['--allowed-origin', '*'])).toThrow('--cors-origins: "*" is not an origin such as https://example.com.');
});

it.each([
  [
    ['--viewport', '800x600', '--viewport-size', '800x600'],
    '--viewport and --viewport-size are one setting (--viewport is its old name): keep --viewport-size',
  ],
  [['--file-roots', '/a', '--file-root', '/b'], '--file-root and --file-roots are one setting (--file-root is its old name): keep --file-roots'],
  [['--allowed-origin', 'https://a.example', '--cors-origins', 'https://b.example'], '--allowed-origin and --cors-origins are one setting'],
  [['--headed', '--headless'], '--headed and --headless contradict each other: keep one'],
])('refuses the conflicting %j', (argv, message) => {
  expect(() => serve(argv)).toThrow(ConfigError);
  expect(() => serve(argv)).toThrow(message);
});

it('lets an old spelling on the command line win over the new one from the environment, as any flag does', () => {
  vi.stubEnv('BROWSERMCP_VIEWPORT_SIZE', '1024x768');
  expect(serve([]).options.local?.viewport).toEqual({ width: 1024, height: 768 });
  expect(serve(['--viewport', '800x600']).options.local?.viewport).toEqual({ width: 800, height: 600 });
});

it('reads every setting from BROWSERMCP_<FLAG>, and a flag overrides it', () => {
  vi.stubEnv('BROWSERMCP_COMMAND_TIMEOUT', '30');
  vi.stubEnv('BROWSERMCP_FILE_ROOTS', '/x,/y');
  vi.stubEnv('BROWSERMCP_HEADLESS', '1');
  vi.stubEnv('BROWSERMCP_PORT', '9100');
  vi.stubEnv('BROWSERMCP_BROWSER_ARG', '--window-size=800,600');
  const { options } = serve([], { DISPLAY: ':0' });
  expect(options.commandTimeoutMs).toBe(30_000);
  expect(options.port).toBe(9100);
  expect(options.local).toMatchObject({ fileRoots: ['/x', '/y'], headless: true, browserArgs: ['--window-size=800,600'] });
  expect(serve(['--command-timeout', '45', '--port', '9200']).options).toMatchObject({ commandTimeoutMs: 45_000, port: 9200 });
  vi.stubEnv('BROWSERMCP_NO_LOCAL', '1');
  // The local browser's settings then shape nothing: refused, named, rather than ignored.
  expect(() => serve([])).toThrow('--no-local runs without a local browser, so --headless, --browser-arg, --file-roots cannot apply');
  vi.unstubAllEnvs();
  vi.stubEnv('BROWSERMCP_NO_LOCAL', '1');
  expect(serve([]).options.local).toBeNull();
});

it.each([
  [
    ['--cdp-endpoint', 'http://127.0.0.1:9', '--headless', '--browser-arg', '--lang=de'],
    '--headless, --browser-arg shape a browser browsermcp launches; with --cdp-endpoint',
  ],
  [['--cdp-endpoint', 'http://127.0.0.1:9', '--user-data-dir', '/tmp/p', '--profile-dir-name', 'P1'], '--profile-dir-name shape a browser browsermcp launches'],
  [['--cdp-endpoint', 'http://127.0.0.1:9', '--executable-path', '/usr/bin/chromium'], '--executable-path shape a browser browsermcp launches'],
  [['--no-local', '--viewport-size', '800x600'], '--no-local runs without a local browser, so --viewport-size cannot apply'],
  [['--no-local', '--no-sandbox'], '--no-local runs without a local browser, so --no-sandbox cannot apply'],
  [
    ['--no-local', '--output-dir', '/tmp/out', '--max-key-memory', '512'],
    '--no-local runs without a local browser, so --output-dir, --max-key-memory cannot apply',
  ],
  [['--no-local', '--headed'], '--no-local runs without a local browser, so --headed cannot apply'],
  [['--cdp-endpoint', 'http://127.0.0.1:9', '--headed'], '--headed shape a browser browsermcp launches'],
  [
    ['--host', '0.0.0.0', '--auth-secret-file', configFile('s'.repeat(40)), '--pairing-file', '/tmp/p'],
    '--pairing-file holds the secret an extension on this machine pairs with',
  ],
])('refuses what would shape nothing: %j', (argv, message) => {
  expect(() => serve(argv)).toThrow(ConfigError);
  expect(() => serve(argv)).toThrow(message);
});

it('reads a --config file (camelCase keys, lists as arrays); the environment and flags override it', () => {
  const file = configFile({
    port: 9300,
    viewportSize: '800x600',
    fileRoots: ['/a', '/b'],
    browserArg: ['--window-size=800,600', '--lang=de'],
    commandTimeout: 30,
    headless: true,
    corsOrigins: ['https://app.example.com'],
  });
  const { options } = serve(['--config', file], { DISPLAY: ':0' });
  expect(options).toMatchObject({ port: 9300, commandTimeoutMs: 30_000, corsOrigins: ['https://app.example.com'] });
  expect(options.local).toMatchObject({
    viewport: { width: 800, height: 600 },
    fileRoots: ['/a', '/b'],
    browserArgs: ['--window-size=800,600', '--lang=de'],
    headless: true,
  });
  vi.stubEnv('BROWSERMCP_PORT', '9400');
  expect(serve(['--config', file]).options.port).toBe(9400);
  expect(serve(['--config', file, '--port', '9500']).options.port).toBe(9500);
  vi.stubEnv('BROWSERMCP_CONFIG', file);
  expect(serve([]).options.commandTimeoutMs).toBe(30_000);
});

it.each([
  [{ viewport: '800x600' }, '--config: unknown option "viewport". Keys are the flags in camelCase, e.g. "viewportSize".'],
  [{ teleport: true }, '--config: unknown option "teleport"'],
  [{ port: { value: 1 } }, '--config: "port" must be a string, number, boolean or a list of them, as --port takes.'],
  [{ commandTimeout: 0 }, '--command-timeout must be a whole number from 1 to 3600, got "0".'],
  ['{"port": ', '--config '],
  [[1, 2], 'must be a JSON object of options, e.g. {"port": 3456}.'],
])('refuses the config file %j with the reason', (content, message) => {
  expect(() => serve(['--config', configFile(content)])).toThrow(message);
});

it('answers --help and --version without reading the rest', () => {
  expect(parseCli(['--help', '--port', 'x']).kind).toBe('help');
  expect(parseCli(['--version']).kind).toBe('version');
  const token = parseCli(['token', '--help']);
  expect(token.kind === 'help' && token.text).toContain('--secret-file <file>');
});

it('hands --max-key-memory (4096 MB by default) to its own browser, from the flag or BROWSERMCP_MAX_KEY_MEMORY', () => {
  expect(serve([]).options.local?.maxKeyMemoryMb).toBe(4096);
  expect(serve(['--max-key-memory', '512']).options.local?.maxKeyMemoryMb).toBe(512);
  vi.stubEnv('BROWSERMCP_MAX_KEY_MEMORY', '300');
  expect(serve([]).options.local?.maxKeyMemoryMb).toBe(300);
  expect(() => serve(['--max-key-memory', '10'])).toThrow('--max-key-memory must be a whole number from 64 to 1048576, got "10"');
});

it('reads only settings the program declares: a key spelled anywhere else is a mistake said at once', () => {
  const program = buildDaemonProgram();
  program.parse([], { from: 'user' });
  const values = new SettingValues(program);
  expect(values.int('commandTimeout')).toBe(90);
  expect(() => values.str('comandTimeout')).toThrow('comandTimeout is not a setting of browsermcp-daemon: declare its option');
  expect(() => values.bool('noSuchSwitch')).toThrow('noSuchSwitch is not a setting');
  expect(() => values.given('comandTimeout')).toThrow('comandTimeout is not a setting');
  expect(() => values.source('comandTimeout')).toThrow('comandTimeout is not a setting');
  // A whole number is read with the bounds its option was declared with: one read without them is refused.
  expect(() => values.int('host')).toThrow('host is not declared as a whole number (intOption)');
});
