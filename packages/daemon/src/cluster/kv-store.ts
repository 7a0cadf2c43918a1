import { randomBytes } from 'node:crypto';
import type { KV, KvEntry } from '@nats-io/kv';
import { ClusterUnavailableError } from '../errors.js';
import { withCurrentTab, type RouterStore, type SessionRecord, type StateRecord } from '../router/store.js';
import { listKeys } from './keys.js';
import { fromToken, token } from './names.js';
import { signedBy, unsigned, type RecordSigner, type SignedRecord } from './record-signatures.js';
import type { UserProofs } from './user-proofs.js';

/** How often a compare-and-set write is retried when another instance wrote the same key in between. */
const MAX_CAS_ATTEMPTS = 20;

// Keys: `s.<session>` holds a SessionRecord; `t.<executor>.<tab>` holds the id of the session that owns the tab.
const sessionKey = (sessionId: string): string => `s.${token(sessionId)}`;
const tabKey = (executorId: string, tabId: string): string => `t.${token(executorId)}.${token(tabId)}`;
const stateKey = (owner: string): string => `k.${token(owner)}`;
// `x.<name>` holds a secret the daemons share (only they may read the bucket).
const secretKey = (name: string): string => `x.${token(name)}`;
// `p.<instance>` holds the public keys the instance signs its session records with, which only it may write.
const keysKey = (instanceId: string): string => `p.${instanceId}`;

/**
 * The keys a daemon may write in the router's bucket (nats-config's permissions): every session, tab, state and
 * shared-secret key, whichever daemon serves them; of the signing keys only its own.
 */
export function writableRouterKeys(instanceId: string): string[] {
  return ['s.>', 't.>', 'k.>', 'x.>', keysKey(instanceId)];
}

function live(entry: KvEntry | null): entry is KvEntry {
  return entry !== null && entry.operation === 'PUT';
}

/** How this instance signs the session records it serves (record-signatures.ts). */
export interface RecordSigning {
  readonly instanceId: string;
  readonly signer: RecordSigner;
  /** Told of a record that the instance it names as its server did not sign, where it was not believed. */
  readonly onUnsigned?: (record: SessionRecord, where: string) => void;
  /**
   * Proofs of a session's user (user-proofs.ts): made for the records this instance signs, required of every record
   * with a user. Absent where the daemons share no token secret (public-key auth): a record's user is then its
   * server's word.
   */
  readonly userProofs?: UserProofs;
}

/** How many of an instance's signing keys are kept (one per start): records signed before that many restarts fail. */
const MAX_SIGNING_KEYS = 8;
/** How long another instance's keys are used as read before they are read again (a key it dropped stops counting). */
const SIGNING_KEYS_CACHE_MS = 60_000;
/** Session records whose verified revision is remembered (the least recently verified forgotten past it). */
const MAX_VERIFIED_REVISIONS = 10_000;

/**
 * The RouterStore of a cluster, on a JetStream KV bucket shared by every daemon. Each racing write is one atomic
 * KV operation: createSession and claimTab are `create` (fails if the key exists), deleteSession and releaseTab
 * delete at the revision they read, so of two instances doing the same only one sees itself succeed. A session
 * record is signed by the instance it names as its server (`signing`), so that the instance holding its browser can
 * tell it from one another daemon wrote (getVerifiedSession, listVerifiedSessions).
 */
export class KvRouterStore implements RouterStore {
  private readonly kv: KV;
  /** Each instance's signing keys, as last read from its `p.<instance>` entry, and when. */
  readonly #signingKeys = new Map<string, { keys: readonly string[]; at: number }>();
  /** The revision of each session key whose record was last verified (see #verified). */
  readonly #verifiedRevisions = new Map<string, number>();

  /** `down`: whether the NATS connection is lost right now; calls then fail at once instead of at their timeout. */
  constructor(
    kv: KV,
    down: () => boolean = () => false,
    private readonly signing?: RecordSigning,
  ) {
    this.kv = unavailableWhenDown(kv, down);
  }

  /**
   * The record as this instance writes it: when it names this instance as its server, with the proof of its user
   * (this instance checked the user's token to open or take it up) and signed.
   */
  #signed(session: SessionRecord): SessionRecord {
    if (this.signing === undefined || session.servedBy !== this.signing.instanceId) return session;
    const { userProofs, signer } = this.signing;
    const { userProof: _old, ...claims } = session as SignedRecord;
    const proven: SignedRecord = userProofs !== undefined && claims.userId !== undefined ? { ...claims, userProof: userProofs.session(claims) } : claims;
    return signer.sign(proven);
  }

  /** Whether a record's user is proven by an instance that checked that user's token (always, without proofs). */
  #userProven(record: SignedRecord): boolean {
    const proofs = this.signing?.userProofs;
    return proofs === undefined || record.userId === undefined || proofs.provesSession(record, record.userProof);
  }

  /** The cluster's secret `name`: made by the first daemon that asks (create-if-absent), read by the others. */
  async sharedSecret(name: string): Promise<Uint8Array> {
    const key = secretKey(name);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      if (live(entry)) return Buffer.from(entry.string(), 'base64url');
      try {
        await this.kv.create(key, randomBytes(32).toString('base64url'));
      } catch {
        // another daemon made it first: read theirs
      }
    }
    throw new Error(`the cluster's ${name} secret could not be read or made; is the router bucket writable?`);
  }

  createSession(session: SessionRecord): Promise<boolean> {
    return this.#createUnlessLive(sessionKey(session.sessionId), this.#signed(session));
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    const record = await this.#read<SignedRecord>(sessionKey(sessionId));
    return record && unsigned(record);
  }

  /**
   * The session's record, whether the instance it names as its server signed it (record-signatures.ts) and proved
   * its user (user-proofs.ts; without signing, a store outside a cluster, every record counts), and its revision (any
   * write changes it).
   */
  async getVerifiedSession(sessionId: string): Promise<{ record: SessionRecord; verified: boolean; revision: number } | undefined> {
    const entry = await this.kv.get(sessionKey(sessionId));
    if (!live(entry)) return undefined;
    const record = entry.json<SignedRecord>();
    // The record's key names its session: a record copied under another session's key is not that session's.
    const verified = record.sessionId === sessionId && (await this.#verified(entry.key, entry.revision, record)) && this.#userProven(record);
    return { record: unsigned(record), verified, revision: entry.revision };
  }

  /** The executor's sessions whose records their servers signed; the others are told to `onUnsigned` and left out. */
  async listVerifiedSessions(executorId: string): Promise<SessionRecord[]> {
    const sessions: SessionRecord[] = [];
    for (const key of await this.#keys('s.*')) {
      const found = await this.getVerifiedSession(fromToken(key.slice(2)));
      if (found === undefined || found.record.executorId !== executorId) continue;
      if (found.verified) sessions.push(found.record);
      else this.signing?.onUnsigned?.(found.record, 'its browser connected');
    }
    return sessions;
  }

  /** Publishes this instance's signing key beside the keys of its last starts (so that their records still verify). */
  async publishSigningKey(): Promise<void> {
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
      } catch {
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
   * Whether the record (at `revision` of `key`) carries the signature of the instance it names as its server (always,
   * without signing). A revision verified once is not verified again: a record is read on every command that crosses
   * instances, and a signature check costs ~0.1 ms; any write gives the key a new revision.
   */
  async #verified(key: string, revision: number, record: SignedRecord): Promise<boolean> {
    if (this.signing === undefined || this.#verifiedRevisions.get(key) === revision) return true;
    const server = record.servedBy;
    if (server === undefined) return false;
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

  async listSessions(executorId?: string): Promise<SessionRecord[]> {
    const sessions: SessionRecord[] = [];
    for (const key of await this.#keys('s.*')) {
      const session = await this.getSession(fromToken(key.slice(2)));
      if (session !== undefined && (executorId === undefined || session.executorId === executorId)) sessions.push(session);
    }
    return sessions;
  }

  async deleteSession(sessionId: string): Promise<SessionRecord | undefined> {
    const key = sessionKey(sessionId);
    const entry = await this.kv.get(key);
    if (!live(entry)) return undefined;
    try {
      await this.kv.delete(key, { previousSeq: entry.revision });
    } catch {
      // Another instance deleted (or changed) it first: it reports the removal, not us.
      if (live(await this.kv.get(key))) return this.deleteSession(sessionId);
      return undefined;
    }
    const session = unsigned(entry.json<SignedRecord>());
    for (const { key: owned, entry: tab } of await this.#tabsOf(session.executorId)) {
      if (tab.string() === sessionId) await this.kv.delete(owned, { previousSeq: tab.revision }).catch(() => undefined);
    }
    return session;
  }

  async setServedBy(sessionId: string, instanceId: string): Promise<boolean> {
    let found = false;
    await this.#updateSession(sessionId, (session) => {
      found = true;
      return this.#signed({ ...session, servedBy: instanceId });
    });
    return found;
  }

  async setCurrentTab(sessionId: string, tabId: string | undefined): Promise<void> {
    await this.#updateSession(sessionId, (session) => withCurrentTab(session, tabId));
  }

  async claimTab(sessionId: string, tabId: string): Promise<string | undefined> {
    const session = await this.getSession(sessionId);
    if (session === undefined) return undefined;
    const key = tabKey(session.executorId, tabId);
    try {
      await this.kv.create(key, sessionId);
    } catch (error) {
      const owner = await this.kv.get(key);
      if (live(owner)) return owner.string();
      throw error;
    }
    // The session may have been deleted while we claimed: its tab must not outlive it.
    if ((await this.getSession(sessionId)) === undefined) {
      await this.kv.delete(key).catch(() => undefined);
      return undefined;
    }
    return sessionId;
  }

  async releaseTab(executorId: string, tabId: string): Promise<string | undefined> {
    const key = tabKey(executorId, tabId);
    const entry = await this.kv.get(key);
    if (!live(entry)) return undefined;
    try {
      await this.kv.delete(key, { previousSeq: entry.revision });
    } catch {
      return undefined; // released by someone else meanwhile
    }
    const owner = entry.string();
    await this.#updateSession(owner, (session) => (session.currentTabId === tabId ? withCurrentTab(session, undefined) : undefined));
    return owner;
  }

  async getTabOwner(executorId: string, tabId: string): Promise<string | undefined> {
    const entry = await this.kv.get(tabKey(executorId, tabId));
    return live(entry) ? entry.string() : undefined;
  }

  async listTabs(sessionId: string): Promise<string[]> {
    const session = await this.getSession(sessionId);
    if (session === undefined) return [];
    const tabs: string[] = [];
    for (const { key, entry } of await this.#tabsOf(session.executorId)) {
      if (entry.string() === sessionId) tabs.push(fromToken(key.slice(key.lastIndexOf('.') + 1)));
    }
    return tabs;
  }

  createState(state: StateRecord): Promise<boolean> {
    return this.#createUnlessLive(stateKey(state.owner), state);
  }

  getState(owner: string): Promise<StateRecord | undefined> {
    return this.#read<StateRecord>(stateKey(owner));
  }

  async listStates(): Promise<StateRecord[]> {
    const states: StateRecord[] = [];
    for (const key of await this.#keys('k.*')) {
      const state = await this.getState(fromToken(key.slice(2)));
      if (state !== undefined) states.push(state);
    }
    return states;
  }

  async updateState(owner: string, handle: string, change: (state: StateRecord) => StateRecord | undefined): Promise<StateRecord | undefined> {
    const key = stateKey(owner);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      if (!live(entry)) return undefined;
      const state = entry.json<StateRecord>();
      if (state.handle !== handle) return undefined;
      const next = change(state);
      try {
        if (next === undefined) await this.kv.delete(key, { previousSeq: entry.revision });
        else await this.kv.update(key, JSON.stringify(next), entry.revision);
        return next;
      } catch {
        // written by another instance since we read it: read again
      }
    }
    throw new Error(`the kept state of ${owner} is being written by too many instances at once; try again`);
  }

  /** Rewrites a session at the revision it was read (retried when another instance wrote it in between). */
  async #updateSession(sessionId: string, change: (session: SessionRecord) => SessionRecord | undefined): Promise<void> {
    const key = sessionKey(sessionId);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      if (!live(entry)) return;
      const next = change(entry.json<SessionRecord>());
      if (next === undefined) return;
      try {
        await this.kv.update(key, JSON.stringify(next), entry.revision);
        return;
      } catch {
        // written by another instance since we read it: read again
      }
    }
    throw new Error(`session ${sessionId} is being written by too many instances at once; try again`);
  }

  async #tabsOf(executorId: string): Promise<Array<{ key: string; entry: KvEntry }>> {
    const out: Array<{ key: string; entry: KvEntry }> = [];
    for (const key of await this.#keys(`t.${token(executorId)}.*`)) {
      const entry = await this.kv.get(key);
      if (live(entry)) out.push({ key, entry });
    }
    return out;
  }

  /** Writes `value` under `key` unless a live entry is there (one atomic `create`); false if one is. */
  async #createUnlessLive(key: string, value: unknown): Promise<boolean> {
    try {
      await this.kv.create(key, JSON.stringify(value));
      return true;
    } catch (error) {
      // `create` fails when the key exists; any other failure is the store's and is rethrown.
      if (live(await this.kv.get(key))) return false;
      throw error;
    }
  }

  async #read<T>(key: string): Promise<T | undefined> {
    const entry = await this.kv.get(key);
    return live(entry) ? entry.json<T>() : undefined;
  }

  #keys(filter: string): Promise<string[]> {
    return listKeys(this.kv, filter);
  }
}

/** Errors that mean NATS is not there (as opposed to a compare-and-set that lost, which the store handles). */
const CONNECTION_ERRORS = new Set(['TimeoutError', 'ClosedConnectionError', 'RequestError', 'NoRespondersError', 'ConnectionError', 'DrainingConnectionError']);

function unavailable(error: unknown): unknown {
  const name = (error as { name?: unknown })?.name;
  return typeof name === 'string' && CONNECTION_ERRORS.has(name) ? new ClusterUnavailableError((error as Error).message) : error;
}

/**
 * The bucket, with NATS being away turned into ClusterUnavailable: the router then answers "the cluster store cannot
 * be reached", not a timeout of some internal request.
 */
function unavailableWhenDown(kv: KV, down: () => boolean): KV {
  return new Proxy(kv, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (down()) return Promise.reject(new ClusterUnavailableError('the connection to NATS is lost and is being retried'));
        try {
          const result: unknown = value.apply(target, args);
          return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(unavailable(error))) : result;
        } catch (error) {
          throw unavailable(error);
        }
      };
    },
  });
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
