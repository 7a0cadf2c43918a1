import { parseBrowserEntry, type BrowserEntry } from '@browsermcp/protocol';
import type { KvEntry } from '@nats-io/kv';
import type { SealedFor, SealedRecords } from './sealed-records.js';

/** A directory entry's value as its schema reads it; undefined for a delete, or what another program wrote. */
export function parsed<T>(entry: KvEntry | null, parse: (value: unknown) => { ok: true; value: T } | { ok: false }): T | undefined {
  if (entry === null || entry.operation !== 'PUT') return undefined;
  try {
    const result = parse(entry.json());
    return result.ok ? result.value : undefined;
  } catch {
    return undefined; // not JSON: written by something else, ignored
  }
}

/** What an entry's sealed part is bound to: the browser, on that instance. */
const binding = (entry: BrowserEntry): SealedFor => ['browser', entry.id, entry.instanceId];

/**
 * An entry as the bucket keeps it: an extension's user and name sealed (sealed-records.ts), where there is a key to
 * seal them with, so that one daemon's NATS credentials do not read whose browser it is; with them the browser's
 * hold proof and the user proof, which would confirm a guessed user (the browser's signature covers its user).
 */
export function storedEntry(sealer: SealedRecords | undefined, entry: BrowserEntry): BrowserEntry {
  if (sealer === undefined || entry.kind !== 'extension') return entry;
  const { userId, name, hold, userProof, ...open } = entry;
  return { ...open, userId: null, name: '', sealed: sealer.seal(binding(entry), { userId, name, hold, userProof }) };
}

/**
 * An entry as read, its sealed part opened (it keeps `sealed`, which says it came sealed: where the daemons seal, an
 * extension's entry in clear is anyone's word); undefined when it does not open here, or is not an entry then.
 */
export function openedEntry(sealer: SealedRecords | undefined, entry: BrowserEntry | undefined): BrowserEntry | undefined {
  if (entry?.sealed === undefined) return entry;
  // Sealed, it says nothing of its user in clear (a user or a proof beside the seal would be anyone's word).
  if (entry.userId !== null || entry.name !== '' || entry.hold !== undefined || entry.userProof !== undefined) return undefined;
  const part = sealer?.open(binding(entry), entry.sealed);
  if (part === undefined) return undefined;
  const opened = parseBrowserEntry({ ...entry, ...part });
  return opened.ok ? opened.value : undefined;
}
