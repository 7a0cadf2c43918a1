import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { devToolsExposure, freePort, NatsServer, startFixtureServer } from '@browsermcp/testkit';
import { jwtVerify } from 'jose';
import { expect, it } from 'vitest';
import { buildDaemonProgram, parseCli } from '../src/cli-args.js';
import { ConfigError } from '../src/command-line.js';
import { signToken } from '../src/index.js';
import { runCli as run, startCli } from './helpers/cli.js';
import { alive, processTree, tempDir } from './helpers/local.js';

it('lists every flag with its default and variable in --help, and no old spelling', () => {
  const help = parseCli(['--help']);
  if (help.kind !== 'help') throw new Error('no help');
  const text = help.text.replace(/\s+/g, ' ');
  for (const option of buildDaemonProgram().options.filter((o) => !o.hidden)) {
    expect(text).toContain(option.long!);
    if (option.long === '--version') continue;
    // A default commander shows, or one the description names.
    expect(option.defaultValue !== undefined || /\(default: [^)]+\)/.test(option.description), option.long).toBe(true);
    expect(text).toContain(option.envVar!);
  }
  expect(text).toContain('(default: "90", env: BROWSERMCP_COMMAND_TIMEOUT)');
  for (const old of ['--headed', '--viewport ', '--file-root ', '--allowed-host ', '--allowed-origin ']) expect(text).not.toContain(old);
});

it.each(['127.0.0.1', '127.0.0.2', 'localhost', '::1'])('binds %s without a token: it stays on this machine', (host) => {
  expect(() => parseCli(['--host', host])).not.toThrow();
});

it.each([
  [['--host', '192.168.1.5'], '--host 192.168.1.5 exposes the daemon beyond this machine'],
  [['--port', 'http'], '--port must be a whole number from 0 to 65535, got "http".'],
  [['--grace-period=-3'], '--grace-period must be a whole number from 0 to 86400, got "-3".'],
  [['--viewport-size', 'big'], '--viewport-size must look like 1280x720, got "big".'],
  [['--caps', 'telepathy'], '--caps: unknown capability "telepathy"'],
  [['--heartbeat', '0'], '--heartbeat must be a number of seconds above 0, got "0".'],
  [['--cors-origins', 'app.example.com'], '--cors-origins: "app.example.com" is not an origin such as https://example.com.'],
  [['--log-level', 'loud'], '--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud".'],
  [['--teleport'], "unknown option '--teleport'; run browsermcp-daemon --help for every option"],
  [['--host', '0.0.0.0'], '--host 0.0.0.0 exposes the daemon beyond this machine; set --auth-secret-file (or --auth-public-key-file) too'],
  [['--auth-secret-file', '/nonexistent/secret'], '--auth-secret-file /nonexistent/secret cannot be read (ENOENT)'],
  [['--cdp-endpoint', 'localhost:9222'], '--cdp-endpoint must be an http(s):// or ws(s):// URL such as http://127.0.0.1:9222, got "localhost:9222".'],
  [['token', '--user', 'u'], 'token needs --secret-file'],
  [['--auth-audience', 'wss://relay.example'], '--auth-audience check access tokens and their users: add --auth-secret-file or --auth-public-key-file'],
  [
    ['--max-sessions-per-user', '5', '--auth-max-token-lifetime', '1d'],
    '--auth-max-token-lifetime and --max-sessions-per-user check access tokens and their users',
  ],
  [['--extension-id', 'not-an-id'], '--extension-id: "not-an-id" is not an extension id (32 letters a to p, as chrome://extensions shows it).'],
  [
    ['--auth-max-token-lifetime', 'forever'],
    '--auth-max-token-lifetime must be a positive number of seconds, or a number with s, m, h or d such as 12h (got "forever")',
  ],
  [['--browser-arg=--remote-debugging-port=9222'], '--browser-arg: the browser flag --remote-debugging-port=9222 is refused'],
])('refuses %j with the reason', (args, reason) => {
  expect(() => parseCli(args)).toThrow(ConfigError);
  expect(() => parseCli(args)).toThrow(reason);
});

it('exits 2 with the reason on a bad value', async () => {
  const { code, stderr } = await run(['--command-timeout', 'soon']);
  expect(code).toBe(2);
  expect(stderr).toBe('browsermcp-daemon: --command-timeout must be a whole number from 1 to 3600, got "soon".\n');
});

it('exits 2 for a bad value from the environment, naming the flag', async () => {
  const { code, stderr } = await run(['--port', '0'], { BROWSERMCP_VIEWPORT_SIZE: 'huge' });
  expect(code).toBe(2);
  expect(stderr).toBe('browsermcp-daemon: --viewport-size must look like 1280x720, got "huge".\n');
});

it('prints a token for a user that the secret verifies', async () => {
  const secretFile = join(tempDir('secret'), 'secret');
  const secret = 'x'.repeat(40);
  writeFileSync(secretFile, `${secret}\n`);
  const { code, stdout } = await run([
    'token',
    '--user',
    'alice',
    '--secret-file',
    secretFile,
    '--ttl',
    '1h',
    '--audience',
    'wss://relay.example',
    '--issuer',
    'ops',
  ]);
  expect(code).toBe(0);
  const { payload } = await jwtVerify(stdout.trim(), new TextEncoder().encode(secret));
  expect(payload).toMatchObject({ sub: 'alice', aud: 'wss://relay.example', iss: 'ops' });
  expect(payload.exp! - payload.iat!).toBe(3600);
});

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

it('serves commands, logs one line per session and command, and leaves no Chromium after SIGTERM', async () => {
  const server = await startFixtureServer();
  const { child, address, lines } = await startCli([]);
  try {
    const created = await post(`${address}/sessions`, { clientName: 'cli-test' });
    const { sessionId } = (await created.json()) as { sessionId: string };
    const ran = await post(`${address}/commands`, { name: 'browser_navigate', payload: { url: server.url('/item/9') } }, { 'x-instance-id': sessionId });
    expect(ran.status).toBe(200);
    expect(JSON.stringify(await ran.json())).toContain('Item 9');
    const tree = processTree(child.pid!);
    expect(tree.length).toBeGreaterThan(3); // the daemon and its Chromium

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(tree.filter(alive)).toEqual([]);
    expect(lines.filter((l) => l.msg === 'session opened')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'command')).toEqual([expect.objectContaining({ sessionId, command: 'browser_navigate' })]);
  } finally {
    child.kill('SIGKILL');
    await server.close();
  }
});

it('starts with the old spellings, printing one deprecation line for each, and serves with them', async () => {
  const { child, address, stderr } = await startCli([
    '--viewport',
    '800x600',
    '--allowed-origin',
    'https://app.example.com',
    '--allowed-origin',
    'https://b.example.com',
  ]);
  try {
    const created = await post(`${address}/sessions`, {}, { origin: 'https://app.example.com' });
    expect(created.status).toBe(201);
    expect((await post(`${address}/sessions`, {}, { origin: 'https://c.example.com' })).status).toBe(403);
    // One line for each old spelling, before the pairing code (this daemon has no auth: extensions must pair).
    expect(
      stderr()
        .split('\n')
        .filter((line) => line.includes('deprecated')),
    ).toEqual([
      'browsermcp-daemon: --viewport is deprecated and will be removed in the next release: use --viewport-size',
      'browsermcp-daemon: --allowed-origin is deprecated and will be removed in the next release: use --cors-origins (one comma-separated list)',
    ]);
    expect(stderr()).toMatch(
      /browsermcp-daemon: pair your browser once: paste this code into the browsermcp extension's popup \(kept in \S+pairing-secret\):\n {2}bmcp-pair-1\.\S+\n$/,
    );
  } finally {
    child.kill('SIGKILL');
  }
});

it('with a secret, drives its browser only for a token; the browser has no DevTools port and dies with a SIGKILLed daemon', async () => {
  const server = await startFixtureServer();
  const secretFile = join(tempDir('secret'), 'secret');
  writeFileSync(secretFile, 'y'.repeat(40));
  const { child, address } = await startCli(['--auth-secret-file', secretFile]);
  try {
    expect((await post(`${address}/sessions`, {})).status).toBe(401);
    const auth = { authorization: `Bearer ${await signToken({ userId: 'alice', secret: 'y'.repeat(40) })}` };
    const created = await post(`${address}/sessions`, {}, auth);
    expect(created.status).toBe(201);
    const { sessionId } = (await created.json()) as { sessionId: string };
    const navigate = { name: 'browser_navigate', payload: { url: server.url('/item/4') } };
    expect((await post(`${address}/commands`, navigate, { 'x-instance-id': sessionId })).status).toBe(401);
    const ran = await post(`${address}/commands`, navigate, { 'x-instance-id': sessionId, ...auth });
    expect(JSON.stringify(await ran.json())).toContain('Item 4');

    const tree = processTree(child.pid!);
    const chromium = tree.filter((pid) => pid !== child.pid);
    expect(chromium.length).toBeGreaterThan(2);
    // No DevTools port, file or listening socket that another local process could use.
    expect(devToolsExposure(chromium)).toEqual({ pipe: true, portFlag: false, activePortFile: false, listeningSockets: 0 });

    child.kill('SIGKILL');
    await expect.poll(() => tree.filter(alive), { timeout: 5_000, interval: 100 }).toEqual([]);
  } finally {
    child.kill('SIGKILL');
    await server.close();
  }
});

it('refuses cluster flags that cannot apply or are malformed, and says what to do when NATS is not usable', async () => {
  expect(() => parseCli(['--instance-id', 'a'])).toThrow('--instance-id is for a daemon in a cluster: it needs --nats <url> too');
  expect(() => parseCli(['--nats', 'http://127.0.0.1:4222'])).toThrow('--nats "http://127.0.0.1:4222" is not a NATS URL; use nats://host:port');
  expect(() => parseCli(['--nats', 'nats://127.0.0.1:4222', '--instance-id', 'a.b'])).toThrow('--instance-id "a.b" must be 1-64 letters, digits, - or _');
  expect(parseCli(['--nats', 'nats://127.0.0.1:1, 127.0.0.1:2', '--instance-id', 'east-1'])).toMatchObject({
    options: { cluster: { nats: 'nats://127.0.0.1:1,127.0.0.1:2', instanceId: 'east-1' } },
  });
  process.env.BROWSERMCP_NATS = 'nats://10.0.0.5:4222';
  try {
    expect(parseCli([])).toMatchObject({ options: { cluster: { nats: 'nats://10.0.0.5:4222' } } });
  } finally {
    delete process.env.BROWSERMCP_NATS;
  }

  const nobody = await run(['--no-local', '--port', '0', '--nats', `nats://127.0.0.1:${await freePort()}`]);
  expect(nobody.code).toBe(1);
  expect(nobody.stderr).toContain('cannot reach NATS at nats://127.0.0.1:');
  expect(nobody.stderr).toContain('Start nats-server (with -js) there, or fix --nats');
  const plain = await NatsServer.start({ jetstream: false });
  try {
    const noJetStream = await run(['--no-local', '--port', '0', '--nats', plain.url, '--nats-allow-anonymous']);
    expect(noJetStream.code).toBe(1);
    expect(noJetStream.stderr).toContain(`NATS at ${plain.url} has no JetStream: start nats-server with -js`);
  } finally {
    await plain.close();
  }
});

it('--caps, when given, is what the daemon offers every session (a remote client asks within it); without it, the client chooses', () => {
  const serve = (args: string[]) => {
    const parsed = parseCli(args);
    if (parsed.kind !== 'serve') throw new Error(`not serve: ${parsed.kind}`);
    return parsed.options;
  };
  expect(serve(['--caps', 'testing,pdf']).sessionSettings).toEqual({ caps: ['testing', 'pdf'] });
  expect(serve([]).sessionSettings).toBeUndefined();
});

it("takes the gateway's tool flags: its own browser runs with them, and they are what a remote client's sessions ask within", () => {
  const parsed = parseCli([
    '--snapshot-max-chars',
    '3000',
    '--blocked-origins',
    'ads.example;tracker.example',
    '--codegen',
    'python',
    '--timeout-navigation',
    '120000',
  ]);
  if (parsed.kind !== 'serve') throw new Error(`not serve: ${parsed.kind}`);
  const { sessionSettings, local, commandTimeoutMs } = parsed.options;
  expect(sessionSettings).toEqual({
    snapshotMaxChars: 3000,
    blockedOrigins: ['ads.example', 'tracker.example'],
    codegen: 'python',
    navigationTimeoutMs: 120_000,
  });
  expect(local?.toolConfig).toMatchObject({ snapshotMaxChars: 3000, codegen: 'python', navigationTimeoutMs: 120_000, checkUrl: expect.any(Function) });
  expect(local?.toolConfig?.checkUrl?.('https://tracker.example/x')).toContain('--blocked-origins');
  // The navigation set longer than the default command timeout moves the command timeout, as in the gateway.
  expect(commandTimeoutMs).toBe(134_000);
  expect(() => parseCli(['--snapshot-mode', 'tiny'])).toThrow(/--snapshot-mode/);
});
