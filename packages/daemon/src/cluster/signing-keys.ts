import type { KV, KvEntry } from '@nats-io/kv';
import { live, MAX_CAS_ATTEMPTS } from './keys.js';
import { rethrowUnavailable } from './kv-unavailable.js';
import { signedBy, type SignedRecord } from './record-signatures.js';
import type { RecordSigning } from './record-signing.js';

/** How many of an instance's signing keys are kept (one per start): records signed before that many restarts fail. */
export const MAX_SIGNING_KEYS = 8;
/** How long another instance's keys are used as read before they are read again (a key it dropped stops counting). */
const SIGNING_KEYS_CACHE_MS = 60_000;
/** Session records whose verified revision is remembered (the least recently verified forgotten past it). */
const MAX_VERIFIED_REVISIONS = 10_000;
// `p.<instance>` holds the public keys the instance signs its session records with, which only it may write.
export const keysKey = (instanceId: string): string => `p.${instanceId}`;

/**
 * The instances' record-signing keys in the router's bucket: this instance's published beside those of its last
 * starts, another's read (and read again when a record does not verify: it may have started since), and which
 * revision of each session record verified (signed and proven).
 */
export class SigningKeys {
  /** Each instance's signing keys, as last read from its `p.<instance>` entry, and when. */
  readonly #signingKeys = new Map<string, { keys: readonly string[]; at: number }>();
  /** The revision of each session key whose record was last verified (see verified). */
  readonly #verifiedRevisions = new Map<string, number>();

  constructor(
    private readonly kv: KV,
    private readonly signing: RecordSigning | undefined,
  ) {}

  /** Publishes this instance's signing key beside the keys of its last starts (so that their records still verify). */
  async publish(): Promise<void> {
    if (this.signing === undefined) return;
    const { instanceId, signer } = this.signing;
    const key = keysKey(instanceId);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      const known = live(entry) ? keysIn(entry, instanceId) : [];
      const keys = [...known.filter((k) => k !== signer.publicKey), signer.publicKey].slice(-MAX_SIGNING_KEYS);
      const value = JSON.stringify({ instanceId, keys });
      try {
        if (live(entry)) await this.kv.update(key, value, entry.revision);
        else await this.kv.create(key, value);
        this.#signingKeys.set(instanceId, { keys, at: Date.now() });
        return;
      } catch (error) {
        rethrowUnavailable(error);
        // written meanwhile (a second start under the same id): read again
      }
    }
    throw new Error(`the signing keys of instance ${instanceId} could not be written; is the router bucket writable?`);
  }

  /** An instance's signing keys as last read; read again when `fresh` (it may have started since). */
  async #keysOf(instanceId: string, fresh: boolean): Promise<readonly string[]> {
    const cached = this.#signingKeys.get(instanceId);
    if (cached !== undefined && !fresh && Date.now() - cached.at < SIGNING_KEYS_CACHE_MS) return cached.keys;
    const entry = await this.kv.get(keysKey(instanceId));
    const keys = live(entry) ? keysIn(entry, instanceId) : [];
    this.#signingKeys.set(instanceId, { keys, at: Date.now() });
    return keys;
  }

  /**
   * Whether the record (at `revision` of `key`) carries the signature of the instance it names as its server and,
   * where the daemons share a token secret, its proof (user-proofs.ts: a record with no user too, or another daemon's
   * credentials could open one on any daemon's launched browser); always, without signing. A revision verified once
   * is not verified again: a record is read on every command, and a signature check costs ~0.1 ms; any write gives
   * the key a new revision.
   */
  async verified(key: string, revision: number, record: SignedRecord): Promise<boolean> {
    if (this.signing === undefined || this.#verifiedRevisions.get(key) === revision) return true;
    const server = record.servedBy;
    if (server === undefined || (this.signing.userProofs !== undefined && !this.signing.userProofs.provesSession(record))) return false;
    for (const fresh of [false, true]) {
      if ((await this.#keysOf(server, fresh)).some((publicKey) => signedBy(record, publicKey))) {
        this.#verifiedRevisions.delete(key);
        this.#verifiedRevisions.set(key, revision);
        if (this.#verifiedRevisions.size > MAX_VERIFIED_REVISIONS) this.#verifiedRevisions.delete(this.#verifiedRevisions.keys().next().value!);
        return true;
      }
    }
    return false;
  }
}

/** The keys an instance's `p.<instance>` entry lists; none when it is not that instance's entry or not one at all. */
function keysIn(entry: KvEntry, instanceId: string): string[] {
  try {
    const value = entry.json<{ instanceId?: unknown; keys?: unknown }>();
    if (value.instanceId !== instanceId || !Array.isArray(value.keys)) return [];
    return value.keys.filter((k): k is string => typeof k === 'string').slice(-MAX_SIGNING_KEYS);
  } catch {
    return [];
  }
}
