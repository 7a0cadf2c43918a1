import { Bucket, type KV, type KvEntry } from '@nats-io/kv';

/** How often a compare-and-set write is retried when another instance wrote the same key in between. */
export const MAX_CAS_ATTEMPTS = 20;

/** Whether a read found a value (not nothing, nor a delete or purge marker). */
export function live(entry: KvEntry | null): entry is KvEntry {
  return entry !== null && entry.operation === 'PUT';
}

/**
 * The keys of a bucket that match `filter` (NATS wildcards), read from its stream's per-subject counts: one request,
 * no consumer. (A `keys()` consumer can wait for ever when nothing matches the filter; see nats.net#1046.)
 * Deleted keys are included while their delete marker is kept: read each entry to know.
 */
export async function listKeys(kv: KV, filter = '>'): Promise<string[]> {
  if (!(kv instanceof Bucket)) {
    const keys: string[] = [];
    for await (const key of await kv.keys(filter)) keys.push(key);
    return keys;
  }
  const info = await kv.jsm.streams.info(kv.stream, { subjects_filter: kv.subjectForKey(filter) });
  const prefix = `${kv.prefix}.`;
  return Object.keys(info.state.subjects ?? {})
    .filter((subject) => subject.startsWith(prefix))
    .map((subject) => kv.decodeKey(subject.slice(prefix.length)));
}
