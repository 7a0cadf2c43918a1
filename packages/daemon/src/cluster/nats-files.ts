import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClusterMember, natsClusterConfig } from './nats-config.js';

export interface NatsClusterFiles {
  /** nats-server's configuration: the cluster's account, a user per daemon and its permissions. */
  readonly config: string;
  /** Each daemon's nkey seed file, by instance id: that daemon's --nats-nkey-seed-file. */
  readonly seeds: Readonly<Record<string, string>>;
}

/**
 * Writes a least-privilege NATS setup for the daemons `instances` into `dir` (made 0700): `nats.conf` and one
 * `<instance>.nk` seed file each (0600). The server's file holds public keys only; each seed goes to its daemon.
 */
export function writeNatsClusterFiles(options: {
  dir: string;
  instances: readonly string[];
  prefix?: string | undefined;
  /** The most disk the cluster's buckets may take (NATS size syntax; nats-config.ts DEFAULT_MAX_STORE). */
  maxStore?: string | undefined;
}): NatsClusterFiles {
  if (options.instances.length === 0) throw new Error('name at least one daemon (its --instance-id)');
  // Never over another setup: its seeds may be in use, and a config that no longer matches them locks daemons out.
  const taken = ['nats.conf', ...options.instances.map((id) => `${id}.nk`)].find((name) => existsSync(join(options.dir, name)));
  if (taken !== undefined) throw new Error(`${join(options.dir, taken)} exists already: give an empty --dir (or remove the old setup first)`);
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  chmodSync(options.dir, 0o700);
  const made = options.instances.map((instanceId) => createClusterMember(instanceId));
  const config = join(options.dir, 'nats.conf');
  // Built before anything is written: a bad id or prefix leaves no half-written setup behind.
  const text = natsClusterConfig({ members: made.map((m) => m.member), prefix: options.prefix, maxStore: options.maxStore });
  const seeds: Record<string, string> = {};
  for (const { member, seed } of made) {
    const file = join(options.dir, `${member.instanceId}.nk`);
    writeFileSync(file, `${seed}\n`, { mode: 0o600, flag: 'wx' });
    seeds[member.instanceId] = file;
  }
  writeFileSync(config, text, { mode: 0o600, flag: 'wx' });
  return { config, seeds };
}
