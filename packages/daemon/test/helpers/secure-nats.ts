import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NatsServer } from '@browsermcp/testkit';
import { writeNatsClusterFiles } from '../../src/cluster/nats-files';
import { startDaemon, type ClusterSettings, type RunningDaemon } from '../../src/daemon';
import { hs256Verifier } from '../../src/server/auth';

/** A nats-server set up as `browsermcp-daemon nats-config` writes it (an account, an nkey user per daemon, permissions). */
export async function startSecureNats(
  instances: readonly string[],
  extraConfig = '',
  maxStore?: string,
): Promise<{
  nats: NatsServer;
  /** The cluster settings of daemon `instanceId`, with its own seed. */
  cluster(instanceId: string): ClusterSettings & { instanceId: string };
  seedFile(instanceId: string): string;
  /**
   * Daemon `instanceId` of the cluster in this process, with tokens signed by `secret`, no browser of its own; its log
   * lines (warnings and worse) go to `log` when given.
   */
  daemon(instanceId: string, secret: string, log?: (line: string) => void): Promise<RunningDaemon>;
  close(): Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'bmcp-nats-keys-'));
  const files = writeNatsClusterFiles({ dir: join(dir, 'cluster'), instances, maxStore });
  const nats = await NatsServer.start({ config: readFileSync(files.config, 'utf8') + extraConfig });
  const seedFile = (instanceId: string) => files.seeds[instanceId] ?? `${dir}/none-for-${instanceId}`;
  const cluster = (instanceId: string) => ({ nats: nats.url, instanceId, credentials: { nkeySeed: readFileSync(seedFile(instanceId), 'utf8') } });
  return {
    nats,
    seedFile,
    cluster,
    daemon: (instanceId, secret, log) =>
      startDaemon({
        ...(log ? { logger: { level: 'warn', stream: { write: log } } } : {}),
        host: '127.0.0.1',
        port: 0,
        local: null,
        verifier: hs256Verifier(secret),
        commandTimeoutMs: 5_000,
        gracePeriodMs: 30_000,
        cluster: { ...cluster(instanceId), heartbeatMs: 250 },
      }),
    async close() {
      await nats.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
