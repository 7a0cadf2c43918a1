import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { NatsServer } from '@browsermcp/testkit';
import { Kvm } from '@nats-io/kv';
import { connect as connectNats } from '@nats-io/transport-node';
import { afterAll, expect, it } from 'vitest';
import { runCli, startCli, type RunningCli } from '../helpers/cli';
import { operatorSetup } from '../helpers/nats-jwt';
import { tempDir } from '../helpers/local';

// How a daemon proves itself to NATS, as the CLI takes it: each kind of credential, TLS, and the refusals, with no
// secret ever in what it prints. The daemons a test starts do not depend on each other: they start side by side,
// since a Node start is most of what each one takes.
const servers: NatsServer[] = [];
const running: RunningCli[] = [];

afterAll(async () => {
  for (const cli of running) if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
  for (const server of servers) await server.close();
});

async function nats(config: string): Promise<NatsServer> {
  const server = await NatsServer.start({ config: `max_payload: 8MB\n${config}` });
  servers.push(server);
  return server;
}

async function joins(args: string[]): Promise<RunningCli> {
  const cli = await startCli(['--no-local', ...args]);
  running.push(cli);
  return cli;
}

function everything(cli: RunningCli): string {
  return JSON.stringify(cli.lines) + cli.stderr();
}

const USERS = 'accounts: { C: { jetstream: enabled, users: [ { user: "daemon", password: "pass-w0rd-secret" } ] } }';

it('joins with a user and password in the URL, prints the URL without the password, and names the fix when they are wrong or missing', async () => {
  const server = await nats(USERS);
  const url = `nats://daemon:pass-w0rd-secret@127.0.0.1:${server.port}`;
  const [cli, wrong, none] = await Promise.all([
    joins(['--nats', url]),
    runCli(['--no-local', '--port', '0', '--nats', `nats://daemon:wrong-secret-9@127.0.0.1:${server.port}`]),
    runCli(['--no-local', '--port', '0', '--nats', server.url]),
  ]);
  expect(cli.lines.find((line) => line.msg === 'browsermcp daemon listening')).toMatchObject({ nats: `nats://daemon:***@127.0.0.1:${server.port}` });
  expect(everything(cli)).not.toContain('pass-w0rd-secret');

  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toContain(`NATS at nats://daemon:***@127.0.0.1:${server.port} refused this daemon's credentials`);
  expect(wrong.stderr + wrong.stdout).not.toContain('wrong-secret-9');
  expect(none.code).toBe(1);
  expect(none.stderr).toContain(`NATS at ${server.url} needs credentials: give --nats-nkey-seed-file`);
});

/**
 * A TCP relay to `port` whose first connection never passes on what the client sends: to NATS that client looks as
 * one starved of CPU while it starts, which has not answered the greeting when the server's authorization timeout runs
 * out. Later connections pass both ways.
 */
async function stallingFirstHandshake(port: number): Promise<{ port: number; connections: () => number; close: () => void }> {
  let connections = 0;
  const relay = createServer((client) => {
    const first = connections++ === 0;
    const server = connect(port, '127.0.0.1');
    server.pipe(client);
    if (!first) client.pipe(server);
    for (const [socket, other] of [
      [client, server],
      [server, client],
    ] as const) {
      socket.on('error', () => other.destroy());
      socket.on('close', () => other.end());
    }
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return { port: (relay.address() as AddressInfo).port, connections: () => connections, close: () => relay.close() };
}

it('joins when NATS gave up on its first handshake (a busy machine), and does not blame the credentials for it', async () => {
  const server = await nats(`authorization { timeout: 0.5 }\n${USERS}`);
  const relay = await stallingFirstHandshake(server.port);
  try {
    const cli = await joins(['--nats', `nats://daemon:pass-w0rd-secret@127.0.0.1:${relay.port}`]);
    expect(cli.lines.find((line) => line.msg === 'browsermcp daemon listening')).toBeDefined();
    expect(relay.connections()).toBeGreaterThan(1);
    expect(everything(cli)).not.toContain('refused');
  } finally {
    relay.close();
  }
});

it('refuses a bucket an older release made, which a writer of any one key could empty, and says how to replace it', async () => {
  const server = await nats('');
  const nc = await connectNats({ servers: server.url });
  await new Kvm(nc).create('browsermcp_router', { history: 1 });
  await nc.close();
  const refused = await runCli(['--no-local', '--port', '0', '--nats', server.url, '--nats-allow-anonymous']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("the cluster's bucket browsermcp_router lets any client that may write one key of it empty it all");
  expect(refused.stderr).toContain('nats stream rm KV_browsermcp_router');
});

it('joins with a token from the environment, and refuses two kinds of credential at once', async () => {
  const server = await nats('authorization { token: "tok-0123456789" }');
  // The token is in this process's environment only while that daemon starts: the others start after it.
  const cli = await startCliWithEnv(['--nats', server.url], { BROWSERMCP_NATS_TOKEN: 'tok-0123456789' });
  expect(everything(cli)).not.toContain('tok-0123456789');
  const [both, stray] = await Promise.all([
    runCli(['--no-local', '--nats', `nats://u:p@127.0.0.1:${server.port}`, '--nats-token', 'x']),
    runCli(['--no-local', '--nats-token', 'x']),
  ]);
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('NATS credentials are given twice');
  expect(stray.code).toBe(2);
  expect(stray.stderr).toContain('--nats-token is for a daemon in a cluster: it needs --nats <url> too');
});

it("joins a NATS in operator mode with a .creds file (a user JWT its account signed), and is refused with a stranger's", async () => {
  const setup = operatorSetup();
  const server = await nats(setup.config);
  const dir = tempDir('nats-creds');
  writeFileSync(join(dir, 'daemon.creds'), setup.creds, { mode: 0o600 });
  // A user of an account this server's operator never signed.
  writeFileSync(join(dir, 'stranger.creds'), operatorSetup().creds, { mode: 0o600 });
  const [cli, refused] = await Promise.all([
    joins(['--nats', server.url, '--nats-creds-file', join(dir, 'daemon.creds')]),
    runCli(['--no-local', '--port', '0', '--nats', server.url, '--nats-creds-file', join(dir, 'stranger.creds')]),
  ]);
  expect(cli.lines.find((line) => line.msg === 'browsermcp daemon listening')).toMatchObject({ nats: server.url });
  const seed = /SEED-----\n(\S+)/.exec(setup.creds)![1]!;
  expect(everything(cli)).not.toContain(seed);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`NATS at ${server.url} refused this daemon's credentials`);
  expect(refused.stderr).toContain('--nats-creds-file');
});

it('refuses a NATS that lets anyone in unless told to accept it', async () => {
  const server = await nats('');
  const [refused] = await Promise.all([runCli(['--no-local', '--port', '0', '--nats', server.url]), joins(['--nats', server.url, '--nats-allow-anonymous'])]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`NATS at ${server.url} lets anyone connect without credentials`);
  expect(refused.stderr).toContain('--nats-allow-anonymous');
});

it('joins over TLS with the CA and a client certificate, and says which TLS flag to check when one is missing', async () => {
  const dir = tempDir('nats-tls');
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=test-ca',
  );
  for (const name of ['server', 'client']) {
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    writeFileSync(
      join(dir, `${name}.ext`),
      name === 'server' ? 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' : 'extendedKeyUsage=clientAuth\n',
    );
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    );
  }
  const file = (name: string) => join(dir, name);
  const server = await nats(
    `tls { cert_file: "${file('server.pem')}", key_file: "${file('server.key')}", ca_file: "${file('ca.pem')}", verify: true }\n` +
      'authorization { token: "tls-token-secret" }',
  );
  const base = ['--nats', `tls://127.0.0.1:${server.port}`, '--nats-token', 'tls-token-secret'];
  const [, noCa, half] = await Promise.all([
    joins([...base, '--nats-tls-ca', file('ca.pem'), '--nats-tls-cert', file('client.pem'), '--nats-tls-key', file('client.key')]),
    runCli(['--no-local', '--port', '0', ...base, '--nats-tls-cert', file('client.pem'), '--nats-tls-key', file('client.key')]),
    runCli(['--no-local', ...base, '--nats-tls-cert', file('client.pem')]),
  ]);
  expect(noCa.code).toBe(1);
  expect(noCa.stderr).toContain('check --nats-tls-ca, --nats-tls-cert and --nats-tls-key');
  expect(half.code).toBe(2);
  expect(half.stderr).toContain('needs both --nats-tls-cert and --nats-tls-key');
});

it('nats-config writes the server config and one private seed per daemon, and never over an existing setup', async () => {
  const dir = join(tempDir('nats-config'), 'cluster');
  const made = await runCli(['nats-config', '--instances', 'east-1,west-1', '--dir', dir]);
  expect(made.code).toBe(0);
  expect(made.stdout).toContain(`nats-server -c ${join(dir, 'nats.conf')} -js -sd <store dir>`);
  expect(made.stdout).toContain(`--instance-id west-1 --nats-nkey-seed-file ${join(dir, 'west-1.nk')}`);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  for (const name of ['nats.conf', 'east-1.nk', 'west-1.nk']) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
  const config = readFileSync(join(dir, 'nats.conf'), 'utf8');
  expect(config).toContain('"browsermcp.instance.west-1.from.*"');
  expect(config).toContain('"browsermcp.instance.*.from.west-1"');
  expect(config).not.toContain(readFileSync(join(dir, 'west-1.nk'), 'utf8').trim());

  expect(config).toContain('jetstream: { max_file: 1G, max_mem: 0, max_streams: 2, max_consumers: 32 }');

  const small = join(tempDir('nats-config'), 'small');
  const [again, bad, size, badSize] = await Promise.all([
    runCli(['nats-config', '--instances', 'west-1', '--dir', dir]),
    runCli(['nats-config', '--instances', 'a b', '--dir', dir]),
    runCli(['nats-config', '--instances', 'west-1', '--dir', small, '--max-store', '256M']),
    runCli(['nats-config', '--instances', 'west-1', '--dir', join(small, 'bad'), '--max-store', 'lots']),
  ]);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain(`${join(dir, 'nats.conf')} exists already: give an empty --dir`);
  expect(bad.stderr).toContain('--instances: "a b" must be 1-64 letters, digits, - or _');
  expect(size.code).toBe(0);
  expect(readFileSync(join(small, 'nats.conf'), 'utf8')).toContain('max_file: 256M,');
  expect(badSize.code).toBe(2);
  expect(badSize.stderr).toContain('--max-store "lots" must be a size such as 512M or 4G');
});

async function startCliWithEnv(args: string[], env: Record<string, string>): Promise<RunningCli> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    return await joins(args);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
