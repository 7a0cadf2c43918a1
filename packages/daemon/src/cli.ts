#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { redactNatsUrl } from './cluster/nats-connection.js';
import { writeNatsClusterFiles } from './cluster/nats-files.js';
import { startDaemon } from './daemon.js';
import { parseCli } from './cli-args.js';
import { ConfigError } from './command-line.js';
import { signToken } from './server/auth.js';
import { loadPairingSecret } from './server/pairing-secret.js';
import { formatPairingCode } from '@browsermcp/protocol';

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

async function main(argv: string[]): Promise<void> {
  let command: ReturnType<typeof parseCli>;
  try {
    command = parseCli(argv);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`browsermcp-daemon: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (command.kind === 'help') return void process.stdout.write(command.text);
  if (command.kind === 'version') return void process.stdout.write(`${version()}\n`);
  if (command.kind === 'nats-config') {
    let files: ReturnType<typeof writeNatsClusterFiles>;
    try {
      files = writeNatsClusterFiles({ dir: command.dir, instances: command.instances, maxStore: command.maxStore });
    } catch (error) {
      process.stderr.write(`browsermcp-daemon nats-config: ${(error as Error).message}\n`);
      process.exit(2);
    }
    process.stdout.write(
      [
        `Wrote a least-privilege NATS setup for ${command.instances.length} daemon${command.instances.length === 1 ? '' : 's'} in ${command.dir}:`,
        `  nats-server -c ${files.config} -js -sd <store dir>`,
        ...command.instances.map((id) => `  browsermcp-daemon --nats nats://<host>:4222 --instance-id ${id} --nats-nkey-seed-file ${files.seeds[id]}`),
        "Each seed file is that daemon's only: copy it to its machine and nowhere else.",
        '',
      ].join('\n'),
    );
    return;
  }
  if (command.kind === 'token') {
    const { userId, secret, ttlSeconds, audience, issuer } = command;
    process.stdout.write(`${await signToken({ userId, secret, ttlSeconds, audience, issuer })}\n`);
    return;
  }
  for (const note of command.deprecations) process.stderr.write(`browsermcp-daemon: ${note}\n`);
  const pairing = command.pairingFile ? loadPairingSecret(command.pairingFile) : undefined;
  const daemon = await startDaemon({
    ...command.options,
    version: version(),
    ...(command.verifier ? { verifier: command.verifier } : {}),
    ...(pairing ? { pairingSecret: pairing.secret } : {}),
    logger: { level: command.logLevel },
  });
  daemon.app.log.info(
    {
      address: daemon.address,
      auth: command.verifier !== undefined,
      local: daemon.localExecutor?.id ?? false,
      ...(daemon.cluster ? { instanceId: daemon.cluster.instanceId, nats: redactNatsUrl(command.options.cluster?.nats ?? '') } : {}),
    },
    'browsermcp daemon listening',
  );
  if (pairing) {
    // The person carries this to the extension once (its popup): the code says where the daemon is, too.
    const url = `${daemon.address.replace(/^http/, 'ws')}/extension`;
    process.stderr.write(
      `browsermcp-daemon: pair your browser once: paste this code into the browsermcp extension's popup (kept in ${command.pairingFile}):\n  ${formatPairingCode({ url, secret: pairing.secret })}\n`,
    );
  }
  const stop = (signal: string): void => {
    daemon.app.log.info({ signal }, 'shutting down');
    daemon.close().then(
      () => process.exit(0),
      (error: unknown) => {
        daemon.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // SIGHUP (its terminal closed) ends it as cleanly as SIGTERM: the browser it launched goes with it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => stop(signal));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`browsermcp-daemon: ${(error as Error).message}\n`);
  process.exit(1);
});
