import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType, type StreamInfo } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { InvalidArgumentError } from '../errors.js';

/**
 * Opens one of the cluster's KV buckets, creating its stream first when there is none. A KV bucket as nats.js makes
 * it allows rollup headers, and NATS empties a whole stream for any message carrying `Nats-Rollup: all` that its
 * sender may publish: permissions look at subjects, not headers, so one daemon's credentials, allowed a key of their
 * own, could empty the bucket of every daemon's records. The cluster's buckets deny purges (which turns rollups off
 * as well) and deletes of stored messages; the daemons never use either. A bucket made without that is refused.
 */
export async function openBucket(nc: NatsConnection, name: string, options: { ttlMs?: number | undefined } = {}): Promise<KV> {
  const jsm = await jetstreamManager(nc);
  const stream = `KV_${name}`;
  let info = await streamInfo(jsm, stream);
  if (info === undefined) {
    try {
      info = await jsm.streams.add({
        name: stream,
        subjects: [`$KV.${name}.>`],
        retention: RetentionPolicy.Limits,
        max_msgs_per_subject: 1,
        discard: DiscardPolicy.New,
        storage: StorageType.File,
        num_replicas: 1,
        // A daemon's largest value is a session's record (256 KiB at most, session-index.ts): a bound on each key.
        max_msg_size: 1024 * 1024,
        allow_direct: true,
        allow_rollup_hdrs: false,
        deny_purge: true,
        deny_delete: true,
        ...(options.ttlMs !== undefined ? { max_age: options.ttlMs * 1_000_000 } : {}),
      });
    } catch (error) {
      // Another daemon made it at the same moment: read theirs.
      info = await streamInfo(jsm, stream);
      if (info === undefined) throw error;
    }
  }
  if (info.config.deny_purge !== true) {
    throw new InvalidArgumentError(
      `the cluster's bucket ${name} lets any client that may write one key of it empty it all (a rollup header): it was made by an older browsermcp-daemon. Stop the daemons, remove it (nats stream rm ${stream}) and start them again`,
    );
  }
  return new Kvm(nc).open(name);
}

async function streamInfo(jsm: Awaited<ReturnType<typeof jetstreamManager>>, stream: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(stream);
  } catch (error) {
    if (error instanceof Error && /stream not found/i.test(error.message)) return undefined;
    throw error;
  }
}
