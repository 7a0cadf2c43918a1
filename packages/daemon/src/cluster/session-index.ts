import { type KV, type KvEntry, KvWatchInclude } from '@nats-io/kv';
import { parseSessionKey, sessionVersionsFilter, type StoredSession } from './session-versions.js';

/** The most a version may take (a daemon's are about a kilobyte, with --secrets and settings sealed): a bound on what another daemon's writes cost each copy. */
export const MAX_VERSION_BYTES = 256 * 1024;
/**
 * The most this copy keeps of one instance's versions, in bytes: tens of thousands of sessions' worth. An instance can
 * write any number of keys of its own (NATS bounds only the whole store), so past this its further versions are left
 * out here (its own part: sessions it serves then read as missing on the other daemons), and said once.
 */
export const MAX_INSTANCE_BYTES = 64 * 1024 * 1024;
/** What each key this copy knows counts toward its instance's bound besides its version's bytes (its bookkeeping). */
const KEY_COST = 256;

/** One instance's version of a session as this copy last learned it. */
export interface IndexedVersion {
  readonly instance: string;
  readonly key: string;
  readonly revision: number;
  readonly record: StoredSession;
}

interface Known {
  readonly revision: number;
  /** Absent once deleted (the revision kept, so that an older read does not bring it back). */
  readonly version?: IndexedVersion;
  /** What the key counts toward its instance's MAX_INSTANCE_BYTES: KEY_COST, and its version's bytes. */
  readonly bytes: number;
  /** When this copy learned it (ms), so that a full read does not drop what it learned meanwhile. */
  readonly at: number;
}

/**
 * Every instance's versions of sessions, as this instance knows them: a copy kept by a watch of the `s.` keys (others'
 * writes within a few milliseconds), this instance's own writes as it makes them, and a full read at start, after
 * NATS came back (a change the watch missed while it was away) and once a minute (a key purged with no marker). A command reads a
 * session on every hop: from here, without a round trip; where a version must be as the bucket holds it now (the one
 * of the instance asking), the store reads that key itself and teaches it here.
 */
export class SessionIndex {
  readonly #byKey = new Map<string, Known>();
  /** Session id → the keys of its live versions. */
  readonly #bySession = new Map<string, Set<string>>();
  /** Instance → the bytes of its versions kept here. */
  readonly #bytes = new Map<string, number>();
  /** Instances whose versions were left out for MAX_INSTANCE_BYTES, told to `onFull` once. */
  readonly #full = new Set<string>();
  #stopWatch: (() => void) | undefined;
  #started = false;

  /** `keys`: the bucket's keys matching a filter, as the store lists them (failing at once while NATS is away). */
  constructor(
    private readonly kv: KV,
    private readonly keys: (filter: string) => Promise<string[]>,
    private readonly onFull?: (instance: string) => void,
    private readonly maxInstanceBytes = MAX_INSTANCE_BYTES,
    /** Told when the watch ends with an error (the full read once a minute then keeps the copy). */
    private readonly onWatchEnded?: (error: unknown) => void,
  ) {}

  /** Whether the copy is kept (after start): before, and without it, the store reads the bucket. */
  get started(): boolean {
    return this.#started;
  }

  /** Follows the changes, then reads every version (what the watch brought meanwhile is newer and kept). */
  async start(): Promise<void> {
    const watcher = await this.kv.watch({ key: sessionVersionsFilter(), include: KvWatchInclude.UpdatesOnly });
    this.#stopWatch = () => watcher.stop();
    void (async () => {
      for await (const entry of watcher) this.learn(entry.key, entry);
    })().catch((error: unknown) => this.onWatchEnded?.(error));
    await this.refresh();
    this.#started = true;
  }

  stop(): void {
    this.#stopWatch?.();
    this.#started = false;
  }

  /**
   * Reads every version again, each learned as it is read (not all held at once); one the read no longer finds, and
   * that nothing taught this copy since, is gone. A key of an instance past its bound is not read at all.
   */
  async refresh(): Promise<void> {
    const started = Date.now();
    const found = new Set<string>();
    for (const key of await this.keys(sessionVersionsFilter())) {
      found.add(key);
      const named = parseSessionKey(key);
      if (named === undefined || (!this.#byKey.has(key) && this.#cost(named.instance) + KEY_COST > this.maxInstanceBytes)) continue;
      this.learn(key, await this.kv.get(key));
    }
    for (const [key, known] of this.#byKey) if (!found.has(key) && known.at < started) this.#forget(key);
  }

  /** Learns what the bucket holds under `key` (a read, or the watch), unless this copy knows a newer revision. */
  learn(key: string, entry: KvEntry | null): void {
    if (entry === null) return;
    // A record bigger than any a daemon writes is nobody's, and is not kept.
    if (entry.operation !== 'PUT' || entry.length > MAX_VERSION_BYTES) {
      this.#set(key, entry.revision, undefined, 0);
      return;
    }
    this.#set(key, entry.revision, readVersion(entry), entry.length);
  }

  /** Learns this instance's own write: `record` at `revision`, or (undefined) the version at `revision` deleted. */
  wrote(key: string, revision: number, record: StoredSession | undefined): void {
    this.#set(key, revision, record, record === undefined ? 0 : Buffer.byteLength(JSON.stringify(record)), record === undefined);
  }

  /** The session's versions as last learned. */
  versions(sessionId: string): IndexedVersion[] {
    const keys = this.#bySession.get(sessionId);
    if (keys === undefined) return [];
    return [...keys].flatMap((key) => this.#byKey.get(key)?.version ?? []);
  }

  /** The sessions some instance holds a version of. */
  sessionIds(): string[] {
    return [...this.#bySession.keys()];
  }

  /** `deletedAt`: a delete of this copy's own, at the revision it deleted (a later write, whose revision is higher, wins). */
  #set(key: string, revision: number, record: StoredSession | undefined, bytes: number, deletedAt = false): void {
    const known = this.#byKey.get(key);
    if (known !== undefined && (known.revision > revision || (known.revision === revision && !deletedAt))) return;
    const named = parseSessionKey(key);
    if (named === undefined) return;
    const { instance } = named;
    const others = this.#cost(instance) - (known?.bytes ?? 0);
    const version = record === undefined ? undefined : { instance, key, revision, record };
    const cost = KEY_COST + (version === undefined ? 0 : bytes);
    if (others + cost > this.maxInstanceBytes) {
      // Not kept at all, nor its revision: read again (and kept) once the instance's other keys leave room.
      if (known !== undefined) this.#forget(key);
      if (!this.#full.has(instance)) {
        this.#full.add(instance);
        this.onFull?.(instance);
      }
      return;
    }
    this.#setBytes(instance, others + cost);
    this.#byKey.set(key, { revision, at: Date.now(), bytes: cost, ...(version ? { version } : {}) });
    const keys = this.#bySession.get(named.sessionId) ?? new Set<string>();
    if (version !== undefined) keys.add(key);
    else keys.delete(key);
    if (keys.size > 0) this.#bySession.set(named.sessionId, keys);
    else this.#bySession.delete(named.sessionId);
  }

  #cost(instance: string): number {
    return this.#bytes.get(instance) ?? 0;
  }

  #setBytes(instance: string, bytes: number): void {
    if (bytes > 0) this.#bytes.set(instance, bytes);
    else this.#bytes.delete(instance);
  }

  #forget(key: string): void {
    const known = this.#byKey.get(key);
    this.#byKey.delete(key);
    const named = parseSessionKey(key);
    if (named && known) this.#setBytes(named.instance, (this.#bytes.get(named.instance) ?? 0) - known.bytes);
    const keys = named && this.#bySession.get(named.sessionId);
    keys?.delete(key);
    if (named && keys?.size === 0) this.#bySession.delete(named.sessionId);
  }
}

/** The version an entry holds: a JSON object naming its session and browser; anything else is nobody's version. */
export function readVersion(entry: KvEntry): StoredSession | undefined {
  let value: unknown;
  try {
    value = entry.json<unknown>();
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { sessionId, executorId } = value as Record<string, unknown>;
  return typeof sessionId === 'string' && typeof executorId === 'string' ? (value as StoredSession) : undefined;
}
