import type { KV } from '@nats-io/kv';
import { InvalidArgumentError } from '../errors.js';
import type { SessionRecord } from '../router/store.js';
import { live } from './keys.js';
import { unlessDown } from './kv-unavailable.js';
import { unsigned, type SignedRecord } from './record-signatures.js';
import type { RecordSigning } from './record-signing.js';
import { sessionBinding, splitRecord, type PrivatePart } from './sealed-records.js';
import { type IndexedVersion, MAX_VERSION_BYTES, readVersion, SessionIndex } from './session-index.js';
import { expired, parseSessionKey, sessionKey, sessionVersionsFilter, type SessionVersion, type StoredSession } from './session-versions.js';
import type { SigningKeys } from './signing-keys.js';

/** How long a version that did not prove is not checked again (its server's keys may have been read since). */
const UNPROVEN_MEMORY_MS = 60_000;
const MAX_UNPROVEN = 10_000;
/** Records not believed whose telling is remembered (the oldest forgotten past it). */
const MAX_TOLD = 10_000;

/**
 * How KvRouterStore reads and writes a session's versions: sealed and signed as this instance writes them, opened and
 * checked as it reads them (believed only signed by the instance of its key, as that session's server, and proven),
 * from the copy a watch keeps (session-index.ts) or, where that has none, from the bucket.
 */
export class SessionReader {
  readonly #index: SessionIndex;
  /** Records not believed that were told to `onUnsigned`, by session and revision. */
  readonly #told = new Set<string>();
  /** The revision this process last wrote of each of its own keys (deleted with the key). */
  readonly #ownWrites = new Map<string, number>();
  /** Versions that did not prove, by key: their revision, and when. */
  readonly #unproven = new Map<string, { revision: number; at: number }>();

  constructor(
    private readonly kv: KV,
    private readonly down: () => boolean,
    private readonly keys: (filter: string) => Promise<string[]>,
    private readonly signingKeys: SigningKeys,
    private readonly signing: RecordSigning | undefined,
  ) {
    this.#index = new SessionIndex(kv, keys, signing?.onInstanceFull, undefined, signing?.onWatchEnded);
  }

  /** The version as the bucket keeps it; refused when it is bigger than the copies keep. */
  serialized(record: StoredSession): string {
    const value = JSON.stringify(record);
    const bytes = Buffer.byteLength(value);
    if (bytes <= MAX_VERSION_BYTES) return value;
    throw new InvalidArgumentError(
      `session ${record.sessionId}'s record (${bytes} bytes) is larger than a cluster keeps (${MAX_VERSION_BYTES}): give it fewer settings or secrets`,
    );
  }

  /** Tells `onUnsigned` of a record not believed, once per session and revision (it is read on every call). */
  tellUnverified(record: SessionRecord, revision: number, where: string): void {
    const told = `${record.sessionId}@${revision}`;
    if (this.#told.has(told)) return;
    if (this.#told.size >= MAX_TOLD) this.#told.delete(this.#told.values().next().value!);
    this.#told.add(told);
    this.signing?.onUnsigned?.(record, where);
  }

  /** Teaches the copy this instance's own write (SessionIndex.wrote), and remembers it as this process's. */
  wrote(key: string, revision: number, record: StoredSession | undefined): void {
    this.#index.wrote(key, revision, record);
    if (record !== undefined) this.#ownWrites.set(key, revision);
    else if (this.#ownWrites.get(key) === revision) this.#ownWrites.delete(key);
  }

  /** Whether this process wrote the version `key` holds at `revision` (a copy written back has another revision). */
  wroteHere(key: string, revision: number): boolean {
    return this.#ownWrites.get(key) === revision;
  }

  /**
   * The record as this instance writes it: when it names this instance as its server, with its proof (this instance
   * checked the user's token to open or take it up) and signed.
   */
  signed(session: StoredSession): StoredSession {
    if (this.signing === undefined || session.servedBy !== this.signing.instanceId) return session;
    const { userProofs, signer } = this.signing;
    const { userProof: _old, ...claims } = session;
    const proven: StoredSession = userProofs !== undefined ? { ...claims, userProof: userProofs.session(claims) } : claims;
    // Signing keeps every field it is given (the epoch and end among them).
    return signer.sign(proven) as StoredSession;
  }

  /** The record as the store keeps it: its private part sealed (sealed-records.ts), where there is a key to seal it with. */
  sealed(session: SessionRecord): SignedRecord {
    const sealer = this.signing?.sealedRecords;
    if (sealer === undefined) return session;
    const { open, part } = splitRecord(session);
    return { ...open, sealed: sealer.seal(sessionBinding(session), part) };
  }

  /**
   * The record as the router works with it: without signature, proofs and epoch, its private part opened. Undefined
   * when it has a sealed part that does not open here (sealed for another session or browser, or changed).
   */
  opened(record: StoredSession): SessionRecord | undefined {
    const { epoch: _epoch, ended: _ended, opening: _opening, notAfter: _notAfter, ...session } = unsigned(record) as StoredSession;
    if (record.sealed === undefined) return session;
    // Sealed by a daemon holding the token secret, as this one writes it (a seal of another shape opens to nothing).
    let part: PrivatePart | undefined;
    try {
      part = this.signing?.sealedRecords?.open(sessionBinding(record), record.sealed) as PrivatePart | undefined;
    } catch {
      part = undefined;
    }
    // Only what was sealed says whose it is: a field of that part written beside the seal is nobody's word.
    return part === undefined ? undefined : { ...splitRecord(session).open, ...part };
  }

  /** The record as cleanup reads it: opened where it opens, else what it shows in clear (its session, browser, server). */
  readable(record: StoredSession): SessionRecord {
    if (this.opened(record) !== undefined) return this.opened(record)!;
    const { epoch: _epoch, ended: _ended, opening: _opening, notAfter: _notAfter, ...session } = unsigned(record) as StoredSession;
    return splitRecord(session).open;
  }

  /**
   * Whether the version under `key` at `revision` is the session's as its server wrote it: under its own session's
   * key and its server's (a record copied under another key is not that one's), signed and proven (signing-keys.ts).
   * One that is not is remembered as such for a while (a version another daemon wrote is read on every call).
   */
  async #proven(sessionId: string, instance: string, key: string, revision: number, record: StoredSession): Promise<boolean> {
    if (record.sessionId !== sessionId || (this.signing !== undefined && record.servedBy !== instance)) return false;
    const failed = this.#unproven.get(key);
    if (failed !== undefined && failed.revision === revision && Date.now() - failed.at < UNPROVEN_MEMORY_MS) return false;
    if (this.opened(record) !== undefined && (await this.signingKeys.verified(key, revision, record))) return true;
    this.#unproven.delete(key);
    this.#unproven.set(key, { revision, at: Date.now() });
    if (this.#unproven.size > MAX_UNPROVEN) this.#unproven.delete(this.#unproven.keys().next().value!);
    return false;
  }

  /**
   * Every instance's version of the session, each with whether it is believed: as the index knows them, once started
   * (`fresh`: an instance whose version is read from the bucket first, the one asking, whose latest write the watch
   * may not have brought yet), and from the bucket where the index knows none (a session opened elsewhere a moment ago).
   */
  async versions(sessionId: string, fresh?: string): Promise<SessionVersion[]> {
    let indexed = await this.#indexed(sessionId, fresh);
    if (indexed.length === 0) indexed = await this.#fromBucket(sessionId);
    return Promise.all(indexed.map((version) => this.#checked(sessionId, version)));
  }

  async #indexed(sessionId: string, fresh: string | undefined): Promise<IndexedVersion[]> {
    if (!this.#index.started) return [];
    if (fresh === undefined) return unlessDown(this.down, async () => this.#index.versions(sessionId));
    const key = sessionKey(fresh, sessionId);
    this.#index.learn(key, await this.kv.get(key));
    return this.#index.versions(sessionId);
  }

  /** The session's versions as the bucket holds them now (taught to the index too). */
  async #fromBucket(sessionId: string): Promise<IndexedVersion[]> {
    const versions: IndexedVersion[] = [];
    for (const key of await this.keys(sessionVersionsFilter(sessionId))) {
      const named = parseSessionKey(key);
      if (named === undefined || named.sessionId !== sessionId) continue;
      const entry = await this.kv.get(key);
      this.#index.learn(key, entry);
      if (!live(entry) || entry.length > MAX_VERSION_BYTES) continue;
      const record = readVersion(entry);
      if (record !== undefined) versions.push({ instance: named.instance, key, revision: entry.revision, record });
    }
    return versions;
  }

  async #checked(sessionId: string, version: IndexedVersion): Promise<SessionVersion> {
    const { instance, key, revision, record } = version;
    // A store that cannot be read says so (a failed read is no proof either way); what another daemon wrote cannot
    // make the check throw (readVersion, opened, signedBy take any shape).
    const proven = await this.#proven(sessionId, instance, key, revision, record);
    // Without signing (a store outside a cluster's trust) a version has no time to run out.
    const believed = proven && (this.signing === undefined || !expired(record, Date.now()));
    return { ...version, proven, believed };
  }

  /** The session's versions as the bucket holds them now, checked: for a write that must know it won. */
  async fresh(sessionId: string): Promise<SessionVersion[]> {
    return Promise.all((await this.#fromBucket(sessionId)).map((version) => this.#checked(sessionId, version)));
  }

  /** Each session's versions, for the sessions any instance holds a version of. */
  async allVersions(): Promise<Map<string, SessionVersion[]>> {
    const all = new Map<string, SessionVersion[]>();
    if (this.#index.started) {
      await unlessDown(this.down, async () => undefined);
      for (const sessionId of this.#index.sessionIds()) {
        all.set(sessionId, await Promise.all(this.#index.versions(sessionId).map((version) => this.#checked(sessionId, version))));
      }
      return all;
    }
    const sessionIds = new Set<string>();
    for (const key of await this.keys(sessionVersionsFilter())) {
      const named = parseSessionKey(key);
      if (named !== undefined) sessionIds.add(named.sessionId);
    }
    for (const sessionId of sessionIds) all.set(sessionId, await this.versions(sessionId));
    return all;
  }

  /** Starts following every instance's versions of sessions (SessionIndex): reads then need no round trip. */
  start(): Promise<void> {
    return this.#index.start();
  }

  /** Reads every version again (once a minute, and after NATS came back), for what the watch may have missed. */
  refresh(): Promise<void> {
    return this.#index.refresh();
  }

  stop(): void {
    this.#index.stop();
  }
}
