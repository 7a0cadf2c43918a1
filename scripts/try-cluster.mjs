#!/usr/bin/env node
// Starts a browsermcp cluster on this machine to try it: one nats-server with JetStream and N daemons that share it,
// with auth: the daemons' tokens, and NATS set up as `browsermcp-daemon nats-config` writes it (an account of the
// cluster's own, one nkey user per daemon, least-privilege permissions). Prints the URLs, a token and the gateway command to use them; Ctrl-C stops everything.
//
//   node scripts/try-cluster.mjs [--daemons 3] [--port 8765] [--nats-port 4222] [--no-browser]
//
// Needs the packages built (npm run setup) and nats-server (Debian/Ubuntu: apt-get install nats-server;
// or https://github.com/nats-io/nats-server/releases; NATS_SERVER=<path> to name it).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const daemonDist = join(root, 'packages/daemon/dist');
const { values } = parseArgs({
  options: {
    daemons: { type: 'string', default: '3' },
    port: { type: 'string', default: '8765' },
    'nats-port': { type: 'string', default: '4222' },
    'no-browser': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write(`Usage: node scripts/try-cluster.mjs [options]

  --daemons <n>     daemons to start (default: 3)
  --port <port>     the first daemon's port; the others take the next ones, 0 picks free ports (default: 8765)
  --nats-port <p>   nats-server's port (default: 4222)
  --no-browser      no daemon launches a browser: extensions only (default: the first daemon launches one)
`);
  process.exit(0);
}
const count = Number(values.daemons);
const basePort = Number(values.port);
if (!Number.isInteger(count) || count < 1 || count > 16) fail('--daemons must be a whole number from 1 to 16');
if (!Number.isInteger(basePort) || basePort < 0 || basePort > 65535) fail('--port must be a port number (0 for free ports)');
if (!existsSync(join(daemonDist, 'cli.js'))) fail('the packages are not built: run `npm run setup` first');
const natsServer = process.env.NATS_SERVER ?? (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server');

const dir = mkdtempSync(join(tmpdir(), 'browsermcp-cluster-'));
const instances = Array.from({ length: count }, (_, i) => `d${i + 1}`);
const { writeNatsClusterFiles } = await import(pathToFileURL(join(daemonDist, 'index.js')).href);
const natsFiles = writeNatsClusterFiles({ dir: join(dir, 'nats-keys'), instances });
const secretFile = join(dir, 'secret');
writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
const children = [];
let stopping = false;

function fail(message) {
  process.stderr.write(`try-cluster: ${message}\n`);
  process.exit(1);
}

/** Resolves once the child has exited, or after `ms` (then it is killed). */
function ended(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The daemons first (each closes its browser and leaves the cluster), then nats-server, then the store. */
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  const [nats, ...daemons] = children;
  for (const daemon of daemons) daemon.kill('SIGTERM');
  await Promise.all(daemons.map((daemon) => ended(daemon, 10_000)));
  if (nats) {
    nats.kill('SIGTERM');
    await ended(nats, 5_000);
  }
  rmSync(dir, { recursive: true, force: true });
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => void stop(0));

/** Spawns a process; resolves with the first stdout line `ready` accepts (its value), fails if it exits first. */
function start(name, command, args, ready) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let buffer = '';
    const read = (data) => {
      buffer += data.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop();
      for (const line of lines) {
        const value = ready(line);
        if (value !== undefined) resolve(value);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('error', (error) => reject(new Error(`${name}: ${error.message}`)));
    child.once('exit', (code) => {
      if (!stopping) reject(new Error(`${name} exited (${code})`));
    });
  });
}

try {
  const natsPort = values['nats-port'];
  await start('nats-server', natsServer, ['-c', natsFiles.config, '-a', '127.0.0.1', '-p', natsPort, '-js', '-sd', join(dir, 'nats')], (line) =>
    /Server is ready/.test(line) ? true : undefined,
  ).catch((error) => {
    throw new Error(`${error.message}. Is nats-server installed? (apt-get install nats-server, or set NATS_SERVER)`);
  });
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  const daemons = [];
  for (let i = 0; i < count; i++) {
    const instanceId = instances[i];
    const local = i === 0 && !values['no-browser'] ? ['--headless'] : ['--no-local'];
    const port = basePort === 0 ? 0 : basePort + i;
    const address = await start(
      `daemon ${instanceId}`,
      process.execPath,
      [
        join(daemonDist, 'cli.js'),
        '--port',
        String(port),
        '--auth-secret-file',
        secretFile,
        '--nats',
        natsUrl,
        '--nats-nkey-seed-file',
        natsFiles.seeds[instanceId],
        '--instance-id',
        instanceId,
        ...local,
      ],
      (line) => {
        try {
          const entry = JSON.parse(line);
          return entry.msg === 'browsermcp daemon listening' ? entry.address : undefined;
        } catch {
          return undefined;
        }
      },
    );
    daemons.push({ instanceId, address, browser: local[0] === '--headless' ? `local-${instanceId}` : undefined });
  }
  const { signToken, loadPairingSecret, defaultPairingFile } = await import(pathToFileURL(join(daemonDist, 'index.js')).href);
  const { formatPairingCode } = await import(pathToFileURL(join(daemonDist, '..', '..', 'protocol', 'dist', 'index.js')).href);
  // The daemons keep the same pairing secret (the default --pairing-file): an extension pairs once with any of them.
  const pairingCode = formatPairingCode({
    url: `${daemons[0].address.replace('http', 'ws')}/extension`,
    secret: loadPairingSecret(defaultPairingFile()).secret,
  });
  const secret = (await import('node:fs')).readFileSync(secretFile, 'utf8');
  const token = await signToken({ userId: 'me', secret, ttlSeconds: 24 * 3600 });
  const mcpUrls = daemons.map((d) => `${d.address.replace('http', 'ws')}/mcp`).join(',');
  process.stdout.write(
    [
      'Cluster ready',
      `  NATS:     ${natsUrl} (JetStream store in ${dir}; its config and each daemon's nkey seed in ${join(dir, 'nats-keys')})`,
      ...daemons.map((d) => `  daemon ${d.instanceId}: ${d.address}${d.browser ? ` (launched browser: ${d.browser})` : ''}`),
      `  token for user "me" (24 h): ${token}`,
      '',
      'Point a gateway at it (it moves to the next daemon when one dies):',
      `  npx browsermcp-gateway --daemon-url ${mcpUrls} --daemon-token ${token}${daemons[0].browser ? ` --daemon-browser ${daemons[0].browser}` : ''}`,
      'Pair an extension with this code (its popup, once; the daemons share its secret), and set the token in its options:',
      `  ${pairingCode}`,
      `Health of each: curl ${daemons[0].address}/health`,
      'Ctrl-C stops the daemons and nats-server and deletes the store.',
      '',
    ].join('\n'),
  );
  for (const child of children) {
    child.stdout.resume();
    child.stderr.resume();
  }
} catch (error) {
  process.stderr.write(`try-cluster: ${error.message}\n`);
  await stop(1);
}
