import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { alive, devToolsExposure, freePort, startFixtureServer } from '@browsermcp/testkit';
import { describe, expect, it } from 'vitest';
import { playwrightEnvAliases, sharedOptions } from '@browsermcp/daemon';
import { parsePairingCode } from '@browsermcp/protocol';
import { buildProgram, resolveConfig } from '../src/index.js';
import { modeDeclaration, modeRule, MODES, refusalIn, type Mode } from '../src/config/modes.js';
import { spawnGatewayCli, text } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const run = (args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 20_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );

describe('browsermcp-gateway CLI', () => {
  it('--help lists every flag with its default and environment variable', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    for (const flag of [
      '--port',
      '--host',
      '--headless',
      '--executable-path',
      '--browser-arg',
      '--sandbox',
      '--no-sandbox',
      '--cdp-endpoint',
      '--user-data-dir',
      '--isolated',
      '--viewport-size',
      '--caps',
      '--shared-browser-context',
      '--allowed-hosts',
      '--allowed-origins',
      '--blocked-origins',
      '--config',
      '--output-dir',
      '--extension',
      '--extension-id',
      '--daemon-url',
      '--daemon-port',
      '--api-key',
      '--no-auth',
      '--cors-origins',
      '--trust-proxy',
      '--api-key-file',
      '--grace-period',
      '--pairing-file',
      '--log-level',
      '--snapshot-mode',
      '--snapshot-boxes',
      '--timeout-action',
      '--timeout-navigation',
      '--console-level',
      '--image-responses',
      '--test-id-attribute',
      '--user-agent',
      '--device',
      '--mobile',
      '--init-script',
      '--grant-permissions',
      '--block-service-workers',
      '--ignore-https-errors',
      '--proxy-server',
      '--proxy-bypass',
      '--storage-state',
      '--secrets',
      '--allow-unrestricted-file-access',
      '--cdp-header',
      '--cdp-timeout',
      '--codegen',
      '--max-tabs',
      '--max-log-entries',
      '--console-lines-in-answer',
      '--max-tab-memory',
      '--max-sessions',
      '--max-sessions-per-key',
      '--progress-interval',
    ]) {
      expect(stdout).toContain(flag);
    }
    expect(stdout.replace(/\s+/g, ' ')).toContain('(default: "127.0.0.1", env: BROWSERMCP_HOST)');
  });

  it('has a default in --help for every flag, and every setting it shares with the daemon under the same flag', () => {
    const options = buildProgram().options;
    for (const option of options) {
      if (option.long === '--version') continue;
      expect(option.defaultValue !== undefined || /\(default: [^)]+\)|\(the default/.test(option.description), option.long).toBe(true);
    }
    const flags = options.map((o) => o.long);
    for (const option of Object.values(sharedOptions({ port: { description: '' } }))) expect(flags).toContain(option.long);
  });

  it('takes --viewport-size none (pages follow the window), as the daemon does', () => {
    const program = buildProgram().exitOverride();
    expect(resolveConfig(program.parse(['--viewport-size', 'none'], { from: 'user' }), {}).viewport).toBeNull();
  });

  it('exits 2 with the reason for a bad value, from flags, environment or config file', async () => {
    // The seven processes at once: each is a Node start, and none depends on another.
    const [flag, env, theirs, noAuth, unknown, launchOnly, config] = await Promise.all([
      run(['--port', 'abc']),
      run([], { BROWSERMCP_VIEWPORT_SIZE: 'huge' }),
      // A configuration written for @playwright/mcp: its variable is read as ours.
      run([], { PLAYWRIGHT_MCP_VIEWPORT_SIZE: 'tiny' }),
      run(['--port', '3999', '--host', '0.0.0.0', '--no-auth']),
      run(['--teleport']),
      run(['--extension', '--headless', '--viewport-size', '800x600']),
      run(['--config', '/nonexistent/config.json']),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--port must be a whole number from 0 to 65535, got "abc"');
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('--viewport-size must look like 1280x720, got "huge"');
    expect(theirs.code).toBe(2);
    expect(theirs.stderr).toContain('--viewport-size must look like 1280x720, got "tiny"');
    expect(noAuth.code).toBe(2);
    expect(noAuth.stderr).toContain('--no-auth is only allowed on a loopback host');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--teleport'");
    expect(launchOnly.code).toBe(2);
    expect(launchOnly.stderr).toContain('--extension drives your own browser, so --headless, --viewport-size cannot apply');
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('--config /nonexistent/config.json: cannot read the file (ENOENT)');
  });

  /** The HTTP gateway CLI on a free port, with one tool call made so that its browser runs. */
  async function startWithBrowser(): Promise<{ child: ChildProcessWithoutNullStreams; browser: number[]; close: () => Promise<void> }> {
    const server = await startFixtureServer();
    const cli = await spawnGatewayCli();
    expect(text(await cli.client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/item/5') } }))).toContain('Item 5');
    const browser = cli.browserPids();
    expect(browser.length).toBeGreaterThan(2);
    return {
      child: cli.child,
      browser,
      close: async () => {
        await cli.close();
        await server.close();
      },
    };
  }

  it('exits 2 with the reason for a bad value of an @playwright/mcp flag, or one that cannot apply', async () => {
    // Checked where the CLI checks them (resolveConfig), in-process: the exit code 2 path is the test above.
    const cases: Array<[string[], string]> = [
      [['--snapshot-mode', 'partial'], '--snapshot-mode must be one of changes, full, none, got "partial"'],
      [['--console-level', 'loud'], '--console-level must be one of error, warning, info, debug, got "loud"'],
      [['--timeout-navigation', '120000', '--command-timeout', '90'], '--timeout-navigation (120000 ms) must be shorter than --command-timeout (90 s)'],
      [['--test-id-attribute', 'data test'], '--test-id-attribute must be an attribute name'],
      [['--device', 'iPhone 99'], '--device: unknown device "iPhone 99". Close ones: iPhone'],
      [['--device', 'iPhone 15', '--mobile'], 'pass one of them'],
      [['--proxy-bypass', 'localhost'], '--proxy-bypass needs --proxy-server'],
      [['--proxy-server', 'proxy:3128'], '--proxy-server must be a proxy URL'],
      [['--init-script', '/nonexistent/init.js'], '--init-script /nonexistent/init.js: cannot read the file (ENOENT)'],
      [['--extension', '--user-agent', 'x'], '--extension drives your own browser, so --user-agent cannot apply'],
      [['--cdp-endpoint', 'http://127.0.0.1:9', '--ignore-https-errors'], 'with --cdp-endpoint, start your browser with them instead'],
      [['--daemon-url', 'ws://127.0.0.1:9/mcp', '--device', 'Pixel 5'], '--daemon-url runs the browser on the daemon, so --device cannot apply here'],
      [['--storage-state', '/nonexistent/state.json'], '--storage-state /nonexistent/state.json: cannot read it as JSON (ENOENT)'],
      [['--storage-state', '/etc/hostname'], '--storage-state /etc/hostname: cannot read it as JSON'],
      [['--secrets', '/nonexistent/.env'], '--secrets /nonexistent/.env: cannot read the file (ENOENT)'],
      [['--port', '0', '--max-sessions-per-key', 'lots'], '--max-sessions-per-key must be a whole number from 1 to 100000, got "lots"'],
      [['--port', '0', '--host', '0.0.0.0', '--trust-client-roots'], '--trust-client-roots applies on a loopback host'],
      [['--trust-client-roots'], '--trust-client-roots is for HTTP: over stdio a client owns the gateway'],
      [
        ['--host', '0.0.0.0', '--api-key', 'abcdefghijklmnopqrstuvwxyz', '--rate-limit', '10'],
        '--host, --api-key, --rate-limit apply to MCP over HTTP (--port): over stdio the client starts the gateway and talks to it alone. Add --port <port>, or drop them.',
      ],
      [['--max-sessions', '5'], '--max-sessions applies to MCP over HTTP (--port)'],
      [['--grace-period', '10'], '--grace-period keeps a session whose legacy SSE stream dropped (over HTTP) or whose browser disconnected (--extension)'],
      [
        ['--daemon-url', 'ws://127.0.0.1:9/mcp', '--output-dir', '/tmp/out'],
        "with --daemon-url the daemon saves what tools write: set --output-dir on browsermcp-daemon (here it shapes only --save-session's records).",
      ],
      [['--cdp-endpoint', 'http://127.0.0.1:9', '--isolated'], 'with --cdp-endpoint'],
      [['--max-tabs', '0'], '--max-tabs must be a whole number from 1 to 1000, got "0"'],
      [['--browser-arg', '--remote-debugging-port=9222'], '--browser-arg: the browser flag --remote-debugging-port=9222 is refused'],
      [
        ['--cdp-endpoint', 'http://127.0.0.1:9', '--no-sandbox'],
        '--no-sandbox shape a browser browsermcp launches; with --cdp-endpoint, start your browser with those flags instead.',
      ],
      [['--extension', '--browser-arg', '--lang=de'], '--extension drives your own browser, so --browser-arg cannot apply'],
      [
        ['--port', '0', '--trust-proxy', 'the proxy'],
        '--trust-proxy must be true, a hop count, or proxy addresses/CIDRs such as 10.0.0.0/8,127.0.0.1, got "the proxy"',
      ],
      [['--port', '0', '--api-key-file', '/nonexistent/keys'], '--api-key-file /nonexistent/keys: cannot read the file (ENOENT)'],
      [['--port', '0', '--api-key-file', '/etc/hostname'], 'is too easy to guess; use 16 or more'],
      [['--port', '0', '--no-auth', '--api-key', 'abcdefghijklmnopqrstuvwxyz'], '--no-auth and an API key contradict each other: keep one.'],
      [['--port', '0', '--api-key', 'abcdefghijklmnopqrstuvwxyz,short'], '--api-key: a key of 5 characters is too easy to guess; use 16 or more'],
      [
        ['--extension-id', 'abcdefghijklmnopabcdefghijklmnop'],
        '--extension-id names the extension that drives your own browser: add --extension, or drop --extension-id.',
      ],
      [
        ['--extension', '--extension-id', 'not-an-id'],
        '--extension-id: "not-an-id" is not an extension id (32 letters a to p, as chrome://extensions shows it).',
      ],
      [['--max-log-entries', '5'], '--max-log-entries must be a whole number from 10 to 100000, got "5"'],
      [['--max-tab-memory', '10'], '--max-tab-memory must be a whole number from 64 to 1048576, got "10"'],
      [['--max-browser-states', '0'], '--max-browser-states must be a whole number from 1 to 100000, got "0"'],
      [['--max-key-memory', '10'], '--max-key-memory must be a whole number from 64 to 1048576, got "10"'],
      [
        ['--extension', '--max-key-memory', '512'],
        "--max-key-memory bounds what each key's tabs hold in this gateway's own browser; with --extension the browser is the person's",
      ],
      [['--daemon-url', 'ws://127.0.0.1:9/mcp', '--max-key-memory', '512'], 'with --daemon-url set --max-key-memory on browsermcp-daemon'],
      [
        ['--daemon-url', 'ws://127.0.0.1:9/mcp', '--max-browser-states', '5'],
        "--max-browser-states bounds the states this gateway's own daemon keeps; with --daemon-url the daemon keeps them: set --max-browser-states on browsermcp-daemon.",
      ],
      [
        ['--browser', 'firefox'],
        'browsermcp drives Chrome-family browsers (Chrome, Edge, Chromium) over the Chrome DevTools Protocol, so Firefox cannot be used',
      ],
      [['--browser', 'webkit'], 'so WebKit cannot be used. Pass --browser chrome, msedge or chromium, or --executable-path.'],
      [['--browser', 'chromium', '--executable-path', '/usr/bin/chromium'], '--browser finds a browser and --executable-path names one: pass one of them.'],
      [['--extension', '--browser', 'chrome'], '--extension drives your own browser, so --browser cannot apply'],
      [['--cdp-endpoint', 'http://127.0.0.1:9', '--idle-timeout', '1000'], 'a browser reached with --cdp-endpoint is yours and stays open'],
      [['--idle-timeout', 'soon'], '--idle-timeout must be a whole number from 0 to 604800000, got "soon"'],
      [
        ['--idle-timeout', '60000', '--keep-browser-state', '5'],
        '--idle-timeout (60000 ms) would close the browser, and the states it keeps, before --keep-browser-state (5 minutes) is up',
      ],
      [['--profile-dir-name', 'Work'], '--profile-dir-name picks a profile inside --user-data-dir: add --user-data-dir <dir>'],
      [['--user-data-dir', '/tmp/x', '--profile-dir-name', '../Work'], '--profile-dir-name must be a directory name inside --user-data-dir'],
      [['--timeout-settle', '-1'], '--timeout-settle must be a whole number from 0 to 60000, got "-1"'],
      [['--file-paths', 'pretty'], '--file-paths must be one of relative, absolute, got "pretty"'],
      [['--output-max-size', '0'], '--output-max-size must be a whole number from 1 to'],
      [
        ['--daemon-url', 'ws://127.0.0.1:9/mcp', '--output-max-size', '1000'],
        'with --daemon-url the daemon saves what tools write: set --output-max-size on browsermcp-daemon',
      ],
      [['--endpoint', 'ws://127.0.0.1:9/x'], 'pass --cdp-endpoint http://127.0.0.1:9222 instead'],
      [['--console-lines-in-answer', 'all'], '--console-lines-in-answer must be a whole number from 0 to 1000, got "all"'],
      [['--codegen', 'ruby'], '--codegen must be one of typescript, python, java, csharp, none, got "ruby"'],
      [['--cdp-header', 'X-Token: abc'], '--cdp-header applies to a browser reached with --cdp-endpoint'],
      [['--cdp-timeout', '100'], '--cdp-timeout applies to a browser reached with --cdp-endpoint'],
      [['--cdp-endpoint', 'http://127.0.0.1:9', '--cdp-header', 'no colon'], '--cdp-header must look like "Authorization: Bearer abc", got "no colon"'],
      [['--cdp-endpoint', 'http://127.0.0.1:9', '--cdp-timeout', '-1'], '--cdp-timeout must be a whole number from 0 to 3600000'],
      [
        ['--daemon-url', 'ws://127.0.0.1:9/mcp', '--allow-unrestricted-file-access', '--file-roots', '/tmp'],
        'so --file-roots, --allow-unrestricted-file-access cannot apply here',
      ],
      [
        ['--allowed-origins', 'https://a.example;example.com:8080'],
        '--allowed-origins: "example.com:8080" is not an origin entry: use an origin (https://example.com), an origin on any port (http://localhost:*), a host name (example.com), data: or blob:.',
      ],
      [['--blocked-origins', 'ftp://files.example'], '--blocked-origins: "ftp://files.example" is not an origin entry'],
    ];
    for (const [args, message] of cases) {
      const program = buildProgram().exitOverride();
      expect(() => resolveConfig(program.parse(args, { from: 'user' }), {}), args.join(' ')).toThrow(message);
    }
  });

  it('refuses every flag in each mode its declaration leaves out, with the declared refusal, and in no other mode', () => {
    // Each mode as the user chooses it. Any value does for the flag under test: refusals come before values are read.
    const modeArgs: Record<Mode, string[]> = {
      launch: [],
      cdp: ['--cdp-endpoint', 'http://127.0.0.1:9'],
      extension: ['--extension'],
      daemon: ['--daemon-url', 'ws://127.0.0.1:9/mcp'],
    };
    const rank = (mode: Mode) => MODES.findIndex((m) => m.mode === mode);
    let refused = 0;
    for (const option of buildProgram().options) {
      if (!option.long || option.long === '--version') continue;
      const flagArgs = option.required || option.optional ? [option.long, 'x'] : [option.long];
      const chooses = MODES.find((m) => m.chosenBy === option.attributeName());
      const rule = modeRule(option);
      for (const { mode } of MODES) {
        // A mode's own flag with a mode chosen after it chooses its own mode (which refuses the other's flag: checked from that side).
        if (chooses && rank(chooses.mode) <= rank(mode)) continue;
        const args = [...modeArgs[mode], ...flagArgs];
        let message: string | undefined;
        try {
          resolveConfig(buildProgram().exitOverride().parse(args, { from: 'user' }), {});
        } catch (err) {
          message = (err as Error).message;
        }
        if (rule && !rule.modes.includes(mode)) {
          expect(message, args.join(' ')).toBe(refusalIn(rule, mode, option.long));
          refused++;
        } else {
          expect(message, args.join(' ')).not.toBe(modeDeclaration(mode).refusal([option.long]));
          if (rule) expect(message, args.join(' ')).not.toBe(refusalIn(rule, mode, option.long));
        }
      }
    }
    // Not vacuous: the declarations leave out dozens of flag-mode pairs.
    expect(refused).toBeGreaterThan(50);
  });

  it("takes @playwright/mcp's --browser, --idle-timeout, --profile-dir-name and its PLAYWRIGHT_MCP_ variables", () => {
    const config = (args: string[], env: Record<string, string> = {}) => resolveConfig(buildProgram().exitOverride().parse(args, { from: 'user' }), env);
    expect(config(['--browser', 'chromium']).executablePath).toBe('/usr/bin/chromium');
    expect(() => config(['--browser', 'msedge'])).toThrow(
      /--browser msedge: Microsoft Edge is not installed here \(looked at \/opt\/microsoft\/msedge\/msedge, .*Install it, or pass --executable-path <path>\./,
    );
    // Closed after an hour unused when headless, as @playwright/mcp; never when headed, with 0, or with --extension.
    expect(config(['--headless']).idleTimeoutMs).toBe(3_600_000);
    expect(config([], { DISPLAY: ':99' }).idleTimeoutMs).toBeUndefined();
    expect(config(['--headless', '--idle-timeout', '0']).idleTimeoutMs).toBeUndefined();
    expect(config(['--extension']).idleTimeoutMs).toBeUndefined();
    // A kept state outlives the default: the browser stays at least as long.
    expect(config(['--headless', '--keep-browser-state', '120']).idleTimeoutMs).toBe(120 * 60_000);
    // Nor before the sessions it serves would time out; sessions kept for ever keep it open.
    expect(config(['--port', '0', '--headless', '--session-idle-timeout', '7200']).idleTimeoutMs).toBe(7_200_000);
    expect(config(['--port', '0', '--headless', '--session-idle-timeout', '0']).idleTimeoutMs).toBeUndefined();
    expect(config(['--user-data-dir', '/tmp/p', '--profile-dir-name', 'Profile 1']).browserArgs).toContain('--profile-directory=Profile 1');
    expect(config(['--timeout-settle', '0']).settleTimeoutMs).toBe(0);
    expect(config([]).filePaths).toBe('relative');
  });

  it("reads @playwright/mcp's environment variables as ours; ours win, and its false means off", () => {
    const aliases = (env: Record<string, string>) => playwrightEnvAliases(buildProgram(), env);
    expect(
      aliases({
        PLAYWRIGHT_MCP_VIEWPORT_SIZE: '800x600',
        PLAYWRIGHT_MCP_CDP_HEADERS: 'X-Key: k',
        PLAYWRIGHT_MCP_SECRETS_FILE: '/s.env',
        PLAYWRIGHT_MCP_HEADLESS: 'true',
      }),
    ).toEqual({
      BROWSERMCP_VIEWPORT_SIZE: '800x600',
      BROWSERMCP_CDP_HEADER: 'X-Key: k',
      BROWSERMCP_SECRETS: '/s.env',
      BROWSERMCP_HEADLESS: '1',
    });
    expect(aliases({ PLAYWRIGHT_MCP_HEADLESS: 'false', PLAYWRIGHT_MCP_SANDBOX: '0' })).toEqual({ BROWSERMCP_NO_SANDBOX: '1' });
    expect(aliases({ PLAYWRIGHT_MCP_PORT: '1', BROWSERMCP_PORT: '2', PLAYWRIGHT_MCP_NOT_A_FLAG: 'x' })).toEqual({});
  });

  it('lets a value the user set move the default it conflicts with; only two set values that conflict are refused', () => {
    const resolve = (args: string[]) => resolveConfig(buildProgram().parse(args, { from: 'user' }), {});
    // --command-timeout 5 under the 60 s default navigation: the navigation's default comes down to fit.
    expect(resolve(['--command-timeout', '5'])).toMatchObject({ commandTimeoutMs: 5_000, navigationTimeoutMs: 4_500 });
    // A long navigation under the 90 s default call: the call's default goes up to fit it.
    expect(resolve(['--timeout-navigation', '120000'])).toMatchObject({ commandTimeoutMs: 134_000, navigationTimeoutMs: 120_000 });
    expect(resolve([])).toMatchObject({ commandTimeoutMs: 90_000, navigationTimeoutMs: 60_000 });
    expect(() => resolve(['--command-timeout', '5', '--timeout-navigation', '6000'])).toThrow(
      '--timeout-navigation (6000 ms) must be shorter than --command-timeout (5 s)',
    );
    // A flag given twice keeps both values where it takes several (it kept only the last, silently).
    const [one, two, three] = ['first-key-0123456789abcdef', 'second-key-0123456789abcdef', 'third-key-0123456789abcdef'];
    expect(resolve(['--port', '0', '--api-key', one, '--api-key', `${two},${three}`]).apiKeys).toEqual([one, two, three]);
  });

  it('reads --allowed-origins and --blocked-origins as @playwright/mcp writes them (semicolons) or as lists', () => {
    const program = buildProgram().exitOverride();
    const config = resolveConfig(
      program.parse(['--allowed-origins', 'https://App.example/;http://localhost:*, docs.example,data:', '--blocked-origins', 'blob'], { from: 'user' }),
      {},
    );
    expect(config.allowedOrigins).toEqual(['https://app.example', 'http://localhost:*', 'docs.example', 'data:']);
    expect(config.blockedOrigins).toEqual(['blob:']);
  });

  it('reads --cdp-header repeated, from the environment, or as a list in the config file (values may hold commas)', () => {
    const resolve = (args: string[]) => {
      const program = buildProgram().exitOverride();
      return resolveConfig(program.parse(['--cdp-endpoint', 'http://127.0.0.1:9', ...args], { from: 'user' }), {});
    };
    const flags = resolve(['--cdp-header', 'Authorization: Bearer a,b', '--cdp-header', 'X-Team:  blue ', '--cdp-timeout', '0']);
    expect(flags.cdpHeaders).toEqual({ Authorization: 'Bearer a,b', 'X-Team': 'blue' });
    expect(flags.cdpTimeoutMs).toBe(0);
    // commander reads the environment as it parses.
    process.env.BROWSERMCP_CDP_HEADER = 'X-Key: k';
    try {
      expect(resolve([]).cdpHeaders).toEqual({ 'X-Key': 'k' });
    } finally {
      delete process.env.BROWSERMCP_CDP_HEADER;
    }
    const file = join(mkdtempSync(join(tmpdir(), 'bmcp-cdp-config-')), 'config.json');
    writeFileSync(file, JSON.stringify({ cdpHeader: ['A: 1,2', 'B: 3'] }));
    expect(resolve(['--config', file]).cdpHeaders).toEqual({ A: '1,2', B: '3' });
    expect(resolve([]).cdpTimeoutMs).toBe(30_000);
  });

  // The tests below that start gateway processes run side by side: each has its own process, port and files, and
  // waits mostly on processes starting and stopping.
  it.concurrent('server mode: bound to every interface it shows the host name, accepts its own names, answers /health to any Host, never prints a given key', async ({
    expect,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'bmcp-keys-'));
    const key = 'k3y-from-a-file-0123456789';
    writeFileSync(join(dir, 'keys'), `# the team's key\n${key}\n`);
    const cli = await spawnGatewayCli(['--host', '0.0.0.0', '--api-key-file', join(dir, 'keys')], { key });
    try {
      const port = new URL(cli.url).port;
      expect(cli.url).toBe(`http://${hostname().toLowerCase()}:${port}/mcp`);
      expect(cli.banner).toContain('API key                yours (from --api-key, BROWSERMCP_API_KEY or --api-key-file; not printed)');
      expect(cli.banner).toContain('--header "Authorization: Bearer <your key>"');
      expect(cli.banner).not.toContain(key);
      const ask = (host: string, path: string, init: { method?: string; body?: string } = {}) =>
        new Promise<number>((resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path,
              method: init.method ?? 'GET',
              headers: {
                host: `${host}:${port}`,
                authorization: `Bearer ${key}`,
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
              },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.once('error', reject);
          req.end(init.body);
        });
      expect(await ask('whatever.example', '/health')).toBe(200);
      expect(await ask('whatever.example', '/tools')).toBe(403);
      expect(await ask(hostname(), '/tools')).toBe(200);
      const address = Object.values(networkInterfaces())
        .flat()
        .find((i) => i && !i.internal && i.family === 'IPv4');
      if (address) expect(await ask(address.address, '/tools')).toBe(200);
    } finally {
      await cli.close();
    }
  });

  it.concurrent('says in its banner and /health when it has no browser to launch, with the fix, before any tool call', async ({ expect }) => {
    // Both gateways at once (two Node starts; neither launches a browser), each closed whether or not the other started.
    const started = await Promise.allSettled([spawnGatewayCli(['--executable-path', '/nonexistent/chrome']), spawnGatewayCli()]);
    try {
      const [cli, fine] = started.map((s) => {
        if (s.status === 'rejected') throw s.reason;
        return s.value;
      });
      const fix = '--executable-path /nonexistent/chrome is not an executable file: pass the path of the Chrome or Chromium binary.';
      expect(cli!.banner).toContain(`Browser                NONE: ${fix}`);
      const health = (await (await fetch(new URL('/health', cli!.url))).json()) as { browser: { mode: string; problem?: string } };
      expect(health.browser).toEqual({ mode: 'launch', connected: false, problem: fix });
      // With a browser there, the banner names it and /health has no problem.
      expect(fine!.banner).toMatch(/Browser {16}\/\S+, launched on first use/);
      expect(((await (await fetch(new URL('/health', fine!.url))).json()) as { browser: object }).browser).not.toHaveProperty('problem');
    } finally {
      await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
    }
  });

  it.concurrent('with --extension, the banner prints the pairing code (naming the daemon, on any port), kept 0600 and the same at the next start', async ({
    expect,
  }) => {
    const port = await freePort();
    const file = join(mkdtempSync(join(tmpdir(), 'bmcp-pairing-')), 'nested', 'pairing-secret');
    const start = async (): Promise<string> => {
      const child = spawn(process.execPath, [CLI, '--port', '0', '--extension', '--daemon-port', String(port), '--pairing-file', file]);
      try {
        let banner = '';
        await new Promise<void>((resolve, reject) => {
          child.stderr.on('data', (d: Buffer) => {
            banner += d.toString();
            if (banner.includes('Each agent gets its own tab group')) resolve();
          });
          child.once('exit', (code) => reject(new Error(`gateway exited early (${code}): ${banner}`)));
        });
        expect(banner).toContain(`paste this code into the extension's popup and press Pair (the secret is kept in ${file})`);
        return /^ {2}(bmcp-pair-1\.\S+)$/m.exec(banner)?.[1] ?? '';
      } finally {
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    };
    const code = await start();
    const pairing = parsePairingCode(code);
    expect(pairing.ok && pairing.value.url).toBe(`ws://127.0.0.1:${port}/extension`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    // Paired once: the next start prints the same code.
    expect(await start()).toBe(code);
    // A secret other users could read is no secret: refused, saying how to fix it.
    chmodSync(file, 0o644);
    const refused = await run(['--port', '0', '--extension', '--pairing-file', file]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`--pairing-file ${file} can be read by other users of this machine: run chmod 600 ${file}`);
  });

  it.concurrent('launches its browser without a DevTools port, and the browser dies within 5 s of a SIGKILL', async ({ expect }) => {
    const { child, browser, close } = await startWithBrowser();
    try {
      expect(devToolsExposure(browser)).toEqual({ pipe: true, portFlag: false, activePortFile: false, listeningSockets: 0 });
      child.kill('SIGKILL');
      await expect.poll(() => browser.filter(alive), { timeout: 5_000, interval: 100 }).toEqual([]);
    } finally {
      await close();
    }
  });

  it.concurrent('a port clash names the flag that set the port: --port for MCP, --daemon-port for the extension', async ({ expect }) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      // Both at once: each fails on the same taken port, before it binds anything.
      const [mcp, extension] = await Promise.all([
        run(['--port', String(port), '--headless']),
        run(['--port', '0', '--extension', '--daemon-port', String(port)]),
      ]);
      expect(mcp.code).toBe(1);
      expect(mcp.stderr).toContain(`cannot start: port ${port} is in use (another program, or another browsermcp, listens there); pick another with --port`);
      expect(extension.code).toBe(1);
      expect(extension.stderr).toContain(
        `cannot start: port ${port} is in use (another program, or another browsermcp, listens there); pick another with --daemon-port`,
      );
      expect(extension.stderr).not.toContain('with --port');
    } finally {
      taken.close();
    }
  });

  it.concurrent('says on SIGTERM what it closes in its mode: with --extension the person’s browser stays open', async ({ expect }) => {
    const child = spawn(process.execPath, [CLI, '--port', '0', '--extension', '--daemon-port', String(await freePort())]);
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', () => err.includes('Each agent gets its own tab group') && resolve());
      child.once('exit', (code) => reject(new Error(`gateway exited early (${code}): ${err}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(err).toContain("SIGTERM: closing the agents' sessions and their tab groups; your browser stays open…");
    expect(err).not.toContain('and the browser…');
  });

  it.concurrent('closes sessions and the browser on SIGHUP (its terminal closed), as on SIGTERM', async ({ expect }) => {
    const { child, browser, close } = await startWithBrowser();
    try {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGHUP');
      expect(await exited).toBe(0);
      expect(browser.filter(alive)).toEqual([]);
    } finally {
      await close();
    }
  });

  it("names each key in its banner and log as the person's popup does (fingerprint, and the label of a label=key line), never the key", async () => {
    const keys = join(mkdtempSync(join(tmpdir(), 'bmcp-labels-')), 'keys');
    writeFileSync(keys, '# two agents\nalice=key-of-alice-0123456789abcdef\nkey-without-label-0123456789\n');
    const child = spawn(process.execPath, [CLI, '--port', '0', '--headless', '--api-key-file', keys, '--log-level', 'info']);
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', () => {
          const found = /MCP \(Streamable HTTP\)\s+(\S+)/.exec(err)?.[1];
          if (found && err.includes('Shown to the person as')) resolve(found);
        });
        child.once('exit', (code) => reject(new Error(`gateway exited early (${code}): ${err}`)));
      });
      const shown = /Shown to the person as alice: (API key [0-9a-f]{8}), (API key [0-9a-f]{8}) \(/.exec(err);
      expect(shown, err).not.toBeNull();
      expect(err).not.toContain('key-of-alice');
      expect(err).not.toContain('key-without-label');
      // A session of alice's key is logged under the same name the banner gave it.
      const local = new URL(url);
      local.hostname = '127.0.0.1';
      const opened = await fetch(local, {
        method: 'POST',
        headers: { authorization: 'Bearer key-of-alice-0123456789abcdef', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
      expect(opened.status).toBe(200);
      await opened.text();
      await expect.poll(() => err).toMatch(new RegExp(`session opened.*agent.*${shown![1]!}.*label.*alice|session opened.*label.*alice.*agent.*${shown![1]!}`));
    } finally {
      child.kill('SIGKILL');
    }
  });
});
