import { randomBytes } from 'node:crypto';
import type { KV, KvEntry } from '@nats-io/kv';
import { withCurrentTab, type RouterStore, type SessionRecord, type StateRecord } from '../router/store.js';
import { listKeys, live, MAX_CAS_ATTEMPTS } from './keys.js';
import { fromToken, token } from './names.js';
import { unsigned, type SignedRecord } from './record-signatures.js';
import type { RecordSigning } from './record-signing.js';
import { samePart, sessionBinding, splitRecord, type PrivatePart } from './sealed-records.js';
import { keysKey, SigningKeys } from './signing-keys.js';
import { unavailableWhenDown } from './kv-unavailable.js';

// Keys: `s.<session>` holds a SessionRecord; `t.<executor>.<tab>` holds the id of the session that owns the tab.
const sessionKey = (sessionId: string): string => `s.${token(sessionId)}`;
const tabKey = (executorId: string, tabId: string): string => `t.${token(executorId)}.${token(tabId)}`;
const stateKey = (owner: string): string => `k.${token(owner)}`;
// `x.<name>` holds a secret the daemons share (only they may read the bucket).
const secretKey = (name: string): string => `x.${token(name)}`;

/**
 * The keys a daemon may write in the router's bucket (nats-config's permissions): every session, tab, state and
 * shared-secret key, whichever daemon serves them; of the signing keys only its own.
 */
export function writableRouterKeys(instanceId: string): string[] {
  return ['s.>', 't.>', 'k.>', 'x.>', keysKey(instanceId)];
}

/** Records not believed whose telling is remembered (the oldest forgotten past it). */
const MAX_TOLD_UNVERIFIED = 10_000;

/**
 * The RouterStore of a cluster, on a JetStream KV bucket shared by every daemon. Each racing write is one atomic
 * KV operation: createSession and claimTab are `create` (fails if the key exists), deleteSession and releaseTab
 * delete at the revision they read, so of two instances doing the same only one sees itself succeed. A session
 * record is signed by the instance it names as its server (`signing`), so that the instance holding its browser can
 * tell it from one another daemon wrote (getVerifiedSession, listVerifiedSessions).
 */
export class KvRouterStore implements RouterStore {
  private readonly kv: KV;
  /** The instances' signing keys, and which revisions verified. */
  readonly #signingKeys: SigningKeys;
  /** Records not believed that were told to `onUnsigned`, by session and revision. */
  readonly #toldUnverified = new Set<string>();

  /** `down`: whether the NATS connection is lost right now; calls then fail at once instead of at their timeout. */
  constructor(
    kv: KV,
    down: () => boolean = () => false,
    private readonly signing?: RecordSigning,
  ) {
    this.kv = unavailableWhenDown(kv, down);
    this.#signingKeys = new SigningKeys(this.kv, signing);
  }

  /**
   * The record as this instance writes it: when it names this instance as its server, with its proof (this instance
   * checked the user's token to open or take it up) and signed.
   */
  #signed(session: SessionRecord): SessionRecord {
    if (this.signing === undefined || session.servedBy !== this.signing.instanceId) return session;
    const { userProofs, signer } = this.signing;
    const { userProof: _old, ...claims } = session as SignedRecord;
    const proven: SignedRecord = userProofs !== undefined ? { ...claims, userProof: userProofs.session(claims) } : claims;
    return signer.sign(proven);
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
    return this.#createUnlessLive(sessionKey(session.sessionId), this.#signed(this.#sealed(session)));
  }

  /** The record as the store keeps it: its private part sealed (sealed-records.ts), where there is a key to seal it with. */
  #sealed(session: SessionRecord): SignedRecord {
    const sealer = this.signing?.sealedRecords;
    if (sealer === undefined) return session;
    const { open, part } = splitRecord(session);
    return { ...open, sealed: sealer.seal(sessionBinding(session), part) };
  }

  /**
   * The record as the router works with it: without signature and proofs, its private part opened. Undefined when it
   * has a sealed part that does not open here (sealed for another session or browser, or changed).
   */
  #opened(record: SignedRecord): SessionRecord | undefined {
    const session = unsigned(record);
    if (record.sealed === undefined) return session;
    // Sealed by a daemon holding the token secret, as this one writes it.
    const part = this.signing?.sealedRecords?.open(sessionBinding(record), record.sealed) as PrivatePart | undefined;
    // Only what was sealed says whose it is: a field of that part written beside the seal is nobody's word.
    return part === undefined ? undefined : { ...splitRecord(session).open, ...part };
  }

  /**
   * The session, as this instance may act on it: in a cluster only a record its server signed and whose user it
   * proved (another is told to `onUnsigned` once per revision and reads as missing), since the bucket is every
   * daemon's to write. getSessionUnchecked reads any record, for what only cleans up.
   */
  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    if (this.signing === undefined) return this.getSessionUnchecked(sessionId);
    const found = await this.getVerifiedSession(sessionId);
    if (found === undefined) return undefined;
    if (found.verified) return found.record;
    this.#tellUnverified(found.record, found.revision, 'it was read');
    return undefined;
  }

  /** Any record under the session's key, believed or not: for a check that only holds something back or cleans up. */
  async getSessionUnchecked(sessionId: string): Promise<SessionRecord | undefined> {
    const record = await this.#read<SignedRecord>(sessionKey(sessionId));
    // One whose part does not open still names its session, browser and server: enough to clean up after it.
    return record && (this.#opened(record) ?? unsigned(record));
  }

  /**
   * Whether the record at `revision` of `key` is the session's as its server wrote it: under its own session's key (a
   * record copied under another session's key is not that session's), signed and proven (signing-keys.ts).
   */
  async #believed(sessionId: string, key: string, revision: number, record: SignedRecord): Promise<boolean> {
    return record.sessionId === sessionId && (await this.#signingKeys.verified(key, revision, record));
  }

  /** Tells `onUnsigned` of a record not believed, once per session and revision (it is read on every call). */
  #tellUnverified(record: SessionRecord, revision: number, where: string): void {
    const told = `${record.sessionId}@${revision}`;
    if (this.#toldUnverified.has(told)) return;
    if (this.#toldUnverified.size >= MAX_TOLD_UNVERIFIED) this.#toldUnverified.delete(this.#toldUnverified.values().next().value!);
    this.#toldUnverified.add(told);
    this.signing?.onUnsigned?.(record, where);
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
    const opened = this.#opened(record);
    const verified = opened !== undefined && (await this.#believed(sessionId, entry.key, entry.revision, record));
    return { record: opened ?? unsigned(record), verified, revision: entry.revision };
  }

  /** The executor's sessions whose records their servers signed; the others are told to `onUnsigned` and left out. */
  async listVerifiedSessions(executorId: string): Promise<SessionRecord[]> {
    const sessions: SessionRecord[] = [];
    for (const key of await this.#keys('s.*')) {
      const found = await this.getVerifiedSession(fromToken(key.slice(2)));
      if (found === undefined || found.record.executorId !== executorId) continue;
      if (found.verified) sessions.push(found.record);
      else this.#tellUnverified(found.record, found.revision, 'its browser connected');
    }
    return sessions;
  }

  /** Publishes this instance's signing key beside the keys of its last starts (so that their records still verify). */
  publishSigningKey(): Promise<void> {
    return this.#signingKeys.publish();
  }

  /** The sessions this instance may act on (see getSession), every one or those held by one executor. */
  listSessions(executorId?: string): Promise<SessionRecord[]> {
    return this.#list(executorId, (sessionId) => this.getSession(sessionId));
  }

  /** Every record, believed or not: for closing what no instance serves (the sweep, a browser that did not come back). */
  listAllSessions(executorId?: string): Promise<SessionRecord[]> {
    return this.#list(executorId, (sessionId) => this.getSessionUnchecked(sessionId));
  }

  async #list(executorId: string | undefined, read: (sessionId: string) => Promise<SessionRecord | undefined>): Promise<SessionRecord[]> {
    const sessions: SessionRecord[] = [];
    for (const key of await this.#keys('s.*')) {
      const session = await read(fromToken(key.slice(2)));
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
    const record = entry.json<SignedRecord>();
    const session = this.#opened(record) ?? unsigned(record);
    for (const { key: owned, entry: tab } of await this.#tabsOf(session.executorId)) {
      if (tab.string() === sessionId) await this.kv.delete(owned, { previousSeq: tab.revision }).catch(() => undefined);
    }
    return session;
  }

  /**
   * Names `instanceId` the session's server (a take-up), signing and proving the record anew: only a record as its
   * server before signed and proved it, at the revision checked (a record another daemon rewrote is not signed over,
   * which would vouch for what it wrote). False when there is none, or none believed.
   */
  async setServedBy(sessionId: string, instanceId: string, as?: SessionRecord): Promise<boolean> {
    const key = sessionKey(sessionId);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      if (!live(entry)) return false;
      const record = entry.json<SignedRecord>();
      const opened = this.#opened(record);
      if (opened === undefined || !(await this.#believed(sessionId, key, entry.revision, record))) {
        this.#tellUnverified(unsigned(record), entry.revision, 'taking it up');
        return false;
      }
      // An older record of the session written back since it was checked (its own server's, believed) is not it.
      if (as !== undefined && !samePart(opened, as)) return false;
      try {
        // Its sealed part as it is: bound to the session and its browser, not to its server.
        await this.kv.update(key, JSON.stringify(this.#signed({ ...record, servedBy: instanceId })), entry.revision);
        return true;
      } catch {
        // written by another instance since we read it: read and check again
      }
    }
    throw new Error(`session ${sessionId} is being written by too many instances at once; try again`);
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
