import type { KV } from '@nats-io/kv';
import { withCurrentTab, type RouterStore, type SessionRecord, type StateRecord } from '../router/store.js';
import { listKeys, live, MAX_CAS_ATTEMPTS } from './keys.js';
import { HeldTabs } from './held-tabs.js';
import { KvStates } from './kv-states.js';
import { SessionReader } from './session-reader.js';
import { sharedSecret } from './shared-secrets.js';
import type { RecordSigning } from './record-signing.js';
import { samePart } from './sealed-records.js';
import {
  currentVersion,
  endedVersion,
  lapsedVersion,
  nextEpoch,
  notAfterOf,
  openingOf,
  outdatedOwnVersions,
  sessionKey,
  topVersion,
  type SessionVersion,
  type StoredSession,
  type VerifiedSession,
  VERSION_LIFETIME_MS,
} from './session-versions.js';
import { keysKey, SigningKeys } from './signing-keys.js';
import { rethrowUnavailable, unavailableWhenDown, unlessDown } from './kv-unavailable.js';

// Keys: `s.<instance>.<session>` holds that instance's version of a session (session-versions.ts). Tab claims are
// not in the bucket: the instance that holds a browser keeps its tabs' (held-tabs.ts).

/**
 * The keys a daemon may write in the router's bucket (nats-config's permissions): its own versions of sessions, parts
 * of kept states, shared secrets it made and signing keys, and no other daemon's.
 */
export function writableRouterKeys(instanceId: string): string[] {
  return [`s.${instanceId}.>`, `k.${instanceId}.>`, `x.${instanceId}.>`, keysKey(instanceId)];
}

/** The instance a store without signing (outside a cluster's trust, in tests) writes its versions as. */
const UNSIGNED_INSTANCE = 'store';

/**
 * The RouterStore of a cluster, on a JetStream KV bucket shared by every daemon. A session is the newest believed of
 * the versions its servers wrote, each under its own instance's key (session-versions.ts), signed by that instance
 * (`signing`) so that the instance holding its browser can tell it from one another daemon wrote (getVerifiedSession,
 * listVerifiedSessions), and read from a copy a watch keeps (session-reader.ts). Each racing write is one atomic KV
 * operation: writes of a version are at the revision they read, so of two instances doing the same only one sees
 * itself succeed. The tabs of the browsers this instance holds are claimed in its memory (held-tabs.ts).
 */
export class KvRouterStore implements RouterStore {
  private readonly kv: KV;
  /** The instances' signing keys, and which revisions verified. */
  readonly #signingKeys: SigningKeys;
  /** The kept browser states and shared secrets (kv-states.ts). */
  readonly #states: KvStates;
  /** Every instance's versions of sessions, as they are read and checked (session-reader.ts). */
  readonly #reader: SessionReader;
  /** The tab claims of the browsers this instance holds. */
  readonly #tabs = new HeldTabs(this);

  /** `down`: whether the NATS connection is lost right now; calls then fail at once instead of at their timeout. */
  constructor(
    kv: KV,
    private readonly down: () => boolean = () => false,
    private readonly signing?: RecordSigning,
  ) {
    this.kv = unavailableWhenDown(kv, down);
    this.#signingKeys = new SigningKeys(this.kv, signing);
    this.#states = new KvStates(this.kv, {
      keys: (filter) => this.#keys(filter),
      self: signing?.instanceId ?? UNSIGNED_INSTANCE,
      ownHoldersOnly: signing !== undefined,
      // Ended or gone, not merely unbelieved now (a take-up checks that on its own).
      sessionOpen: async (sessionId) => (await this.getSessionUnchecked(sessionId)) !== undefined,
      proofs: signing?.userProofs,
      onUnproven: signing?.onUnprovenState,
    });
    this.#reader = new SessionReader(this.kv, down, (filter) => this.#keys(filter), this.#signingKeys, signing);
  }

  /** The cluster's secret `name`: made by the first daemon that asks (create-if-absent), read by the others. */
  sharedSecret(name: string): Promise<Uint8Array> {
    return sharedSecret(this.kv, (filter) => this.#keys(filter), this.#self, name);
  }

  /** The instance whose versions of sessions this store writes (`s.<instance>.<session>`). */
  get #self(): string {
    return this.signing?.instanceId ?? UNSIGNED_INSTANCE;
  }

  /**
   * Adds the session (this instance's version, epoch 1) unless it is open: a session ended before may be opened again
   * under its id, after every version of before. False when it is open, or another instance opened it at once.
   */
  async createSession(session: SessionRecord): Promise<boolean> {
    const versions = await this.#reader.fresh(session.sessionId);
    const current = currentVersion(versions);
    if (current !== undefined && current.record.ended !== true) return false;
    const now = Date.now();
    const opening = Math.max(0, ...versions.filter((v) => v.proven).map((v) => openingOf(v.record))) + 1;
    const own = versions.find((version) => version.instance === this.#self);
    const record = this.#reader.signed({ ...this.#reader.sealed(session), opening, epoch: 1, notAfter: now + VERSION_LIFETIME_MS });
    let written: SessionVersion;
    try {
      written = await this.#writeOwn(session.sessionId, own, record);
    } catch (error) {
      // `create` fails when the key exists (another create came first); any other failure is the store's.
      if (live(await this.kv.get(sessionKey(this.#self, session.sessionId)))) return false;
      throw error;
    }
    if (await this.#won(written)) return true;
    await this.#deleteOwn(written).catch(() => undefined);
    return false;
  }

  /**
   * The session, as this instance may act on it: in a cluster only a version its server signed and whose user it
   * proved (another is told to `onUnsigned` once per revision and reads as missing), since another daemon may write
   * versions of its own. getSessionUnchecked reads any record, for what only cleans up.
   */
  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    if (this.signing === undefined) return this.getSessionUnchecked(sessionId);
    const found = await this.getVerifiedSession(sessionId);
    if (found === undefined) return undefined;
    if (found.verified) return found.record;
    this.#reader.tellUnverified(found.record, found.revision, 'it was read');
    return undefined;
  }

  /**
   * The session as cleanup goes by: its current version, or where none is believed the newest one (a record no
   * instance vouches for is still one to clean up); undefined once ended.
   */
  async getSessionUnchecked(sessionId: string, from?: string): Promise<SessionRecord | undefined> {
    const versions = await this.#reader.versions(sessionId, from);
    const current = topVersion(versions);
    return current === undefined || current.record.ended === true ? undefined : this.#reader.readable(current.record);
  }

  /** Starts following every instance's versions of sessions (session-index.ts): reads then need no round trip. */
  async start(): Promise<void> {
    await this.#reader.start();
    // Holders of kept states this instance had before it started again are gone with that process.
    await this.#states.releaseAll();
  }

  /** Reads every version again (once a minute, and after NATS came back), for what the watch may have missed. */
  refreshSessions(): Promise<void> {
    return this.#reader.refresh();
  }

  stop(): void {
    this.#reader.stop();
  }

  /**
   * The session's current record, whether the instance it names as its server signed it (record-signatures.ts) and
   * proved its user (user-proofs.ts; without signing, a store outside a cluster, every record counts), and its
   * revision (any new version changes it). Where no version is believed, the newest one, not verified; undefined
   * when there is none or the session ended.
   */
  async getVerifiedSession(sessionId: string, from?: string): Promise<VerifiedSession | undefined> {
    return this.#verifiedOf(await this.#reader.versions(sessionId, from));
  }

  #verifiedOf(versions: readonly SessionVersion[]): VerifiedSession | undefined {
    const current = currentVersion(versions);
    if (current !== undefined) {
      if (current.record.ended === true) return undefined;
      return { record: this.#reader.opened(current.record)!, verified: true, revision: current.revision, opening: openingOf(current.record) };
    }
    // Not the session, only told: a version that ran out, or one another daemon wrote under its own key.
    const told = lapsedVersion(versions) ?? versions.find((version) => !version.proven && version.record.ended !== true);
    return told && { record: this.#reader.readable(told.record), verified: false, revision: told.revision, opening: openingOf(told.record) };
  }

  /** The executor's sessions whose records their servers signed; the others are told to `onUnsigned` and left out. */
  async listVerifiedSessions(executorId: string): Promise<SessionRecord[]> {
    const sessions: SessionRecord[] = [];
    for (const versions of (await this.#reader.allVersions()).values()) {
      const found = this.#verifiedOf(versions);
      if (found === undefined || found.record.executorId !== executorId) continue;
      if (found.verified) sessions.push(found.record);
      else this.#reader.tellUnverified(found.record, found.revision, 'its browser connected');
    }
    return sessions;
  }

  /** Publishes this instance's signing key beside the keys of its last starts (so that their records still verify). */
  publishSigningKey(): Promise<void> {
    return this.#signingKeys.publish();
  }

  /** The sessions this instance may act on (see getSession), every one or those held by one executor. */
  async listSessions(executorId?: string): Promise<SessionRecord[]> {
    if (this.signing === undefined) return this.listAllSessions(executorId);
    const sessions: SessionRecord[] = [];
    for (const versions of (await this.#reader.allVersions()).values()) {
      const found = this.#verifiedOf(versions);
      if (found === undefined) continue;
      if (!found.verified) this.#reader.tellUnverified(found.record, found.revision, 'it was read');
      else if (executorId === undefined || found.record.executorId === executorId) sessions.push(found.record);
    }
    return sessions;
  }

  /** Every session, believed or not: for closing what no instance serves (the sweep, a browser that did not come back). */
  async listAllSessions(executorId?: string): Promise<SessionRecord[]> {
    const sessions: SessionRecord[] = [];
    for (const versions of (await this.#reader.allVersions()).values()) {
      const current = topVersion(versions);
      if (current === undefined || current.record.ended === true) continue;
      const session = this.#reader.readable(current.record);
      if (executorId === undefined || session.executorId === executorId) sessions.push(session);
    }
    return sessions;
  }

  /**
   * Ends the session and releases its tabs: writes this instance's ended version (session-versions.ts), above every
   * other. Returns the session, or undefined when it had ended, had no version, or was taken up meanwhile (a version
   * written first outranks the end).
   */
  async deleteSession(sessionId: string): Promise<SessionRecord | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const versions = await this.#reader.fresh(sessionId);
      const current = topVersion(versions);
      if (current === undefined || current.record.ended === true) return undefined;
      const own = versions.find((version) => version.instance === this.#self);
      let written: SessionVersion;
      try {
        written = await this.#writeOwn(sessionId, own, this.#reader.signed(endedVersion(versions, current.record, this.#self, Date.now())));
      } catch (error) {
        rethrowUnavailable(error);
        continue; // this instance's version was written meanwhile: read again
      }
      if (!(await this.#won(written))) return undefined;
      const session = this.#reader.readable(current.record);
      this.#tabs.forget(session.executorId, sessionId);
      return session;
    }
    throw new Error(`session ${sessionId} is being written by too many instances at once; try again`);
  }

  /** Deletes this instance's version at the revision read (failing if it was written since). */
  async #deleteOwn(own: SessionVersion): Promise<void> {
    await this.kv.delete(own.key, { previousSeq: own.revision });
    this.#reader.wrote(own.key, own.revision, undefined);
  }

  /** Writes this instance's version of a session: over the one it read (at its revision), or new. */
  async #writeOwn(sessionId: string, own: SessionVersion | undefined, record: StoredSession): Promise<SessionVersion> {
    const key = sessionKey(this.#self, sessionId);
    const value = this.#reader.serialized(record);
    const revision = own !== undefined ? await this.kv.update(key, value, own.revision) : await this.kv.create(key, value);
    this.#reader.wrote(key, revision, record);
    return { instance: this.#self, key, revision, record, proven: true, believed: true };
  }

  /** Whether the version just written is the session's current one, as the bucket holds them now (no other came first). */
  async #won(written: SessionVersion): Promise<boolean> {
    const current = currentVersion(await this.#reader.fresh(written.record.sessionId));
    return current?.key === written.key && current.revision === written.revision;
  }

  /**
   * Names `instanceId` (this instance) the session's server, a take-up: its own version, one epoch above the current
   * one, signed and proven anew. Only a current version its server signed and proved is taken up, and (with `as`) only
   * while it is the session the caller checked. False when there is none, none believed, or another take-up or an
   * end came first.
   */
  async setServedBy(sessionId: string, instanceId: string, as?: SessionRecord): Promise<boolean> {
    if (this.signing !== undefined && instanceId !== this.#self)
      throw new Error(`instance ${this.#self} cannot write a version of session ${sessionId} for ${instanceId}`);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const versions = await this.#reader.fresh(sessionId);
      const current = currentVersion(versions);
      if (current === undefined) {
        const lapsed = lapsedVersion(versions);
        if (lapsed !== undefined) this.#reader.tellUnverified(this.#reader.readable(lapsed.record), lapsed.revision, 'taking it up');
        return false;
      }
      if (current.record.ended === true) return false;
      // An older record of the session written back since it was checked (its own server's, believed) is not it; nor
      // is one another instance took up since: whether a client drives it there is for the caller to ask first.
      if (as !== undefined && !samePart(this.#reader.opened(current.record)!, as)) return false;
      if (current.instance === this.#self && current.record.servedBy === instanceId) return true;
      if (as !== undefined && current.record.servedBy !== as.servedBy) return false;
      const own = versions.find((version) => version.instance === this.#self);
      // Its sealed part as it is: bound to the session and its browser, not to its server.
      const { signature: _signature, userProof: _proof, ...claims } = current.record;
      const next = { ...claims, servedBy: instanceId, epoch: nextEpoch(versions, current.record), notAfter: Date.now() + VERSION_LIFETIME_MS };
      try {
        // Another take-up that came first is taken up from only without `as` (the caller asked no one).
        if (await this.#won(await this.#writeOwn(sessionId, own, this.#reader.signed(next)))) return true;
      } catch (error) {
        rethrowUnavailable(error);
        // this instance's version was written meanwhile: read and check again
      }
    }
    throw new Error(`session ${sessionId} is being written by too many instances at once; try again`);
  }

  /**
   * Renews the time of the versions this instance serves (the top one, not ended) that have less than half of it left:
   * a version no one renews runs out, and with it what a kept copy of it could do. One that ran out (this daemon was
   * stalled, or away from NATS, past its time) is renewed only as this process wrote it (a copy written back since has
   * another revision) or while `drives` says a client here still drives it; the others are returned, for the sweep to
   * end.
   */
  async renewSessions(drives: (sessionId: string) => boolean): Promise<{ renewed: number; lapsed: string[] }> {
    const done = { renewed: 0, lapsed: [] as string[] };
    if (this.signing === undefined) return done;
    const now = Date.now();
    for (const [sessionId, versions] of await this.#reader.allVersions()) {
      const top = topVersion(versions);
      if (top?.instance !== this.#self || top.record.ended === true) continue;
      if (top.believed && notAfterOf(top.record) - now > VERSION_LIFETIME_MS / 2) continue;
      if (!top.believed && !this.#reader.wroteHere(top.key, top.revision) && !drives(sessionId)) {
        done.lapsed.push(sessionId);
        continue;
      }
      // As the bucket holds it now: one another instance took up or ended meanwhile is not renewed.
      const fresh = await this.#reader.fresh(sessionId);
      const latest = topVersion(fresh);
      if (latest?.key !== top.key || latest.revision !== top.revision) continue;
      const { signature: _signature, userProof: _proof, ...claims } = top.record;
      await this.#writeOwn(sessionId, top, this.#reader.signed({ ...claims, notAfter: now + VERSION_LIFETIME_MS })).then(
        () => done.renewed++,
        () => undefined, // written meanwhile: the next beat reads it anew
      );
    }
    return done;
  }

  /**
   * Deletes this instance's versions that no longer count (session-versions.ts outdatedOwnVersions): outranked, run
   * out, or a tombstone no other version needs any more. Returns how many it deleted.
   */
  async tidySessions(only?: string): Promise<number> {
    let deleted = 0;
    const all = only === undefined ? await this.#reader.allVersions() : new Map([[only, await this.#reader.versions(only)]]);
    for (const versions of all.values()) {
      for (const outdated of outdatedOwnVersions(versions, this.#self, Date.now())) {
        await this.#deleteOwn(outdated).then(
          () => deleted++,
          () => undefined, // written again meanwhile: the next tidy reads it anew
        );
      }
    }
    return deleted;
  }

  async setCurrentTab(sessionId: string, tabId: string | undefined): Promise<void> {
    await this.#updateSession(sessionId, (session) => withCurrentTab(session, tabId) as StoredSession);
  }

  claimTab(sessionId: string, tabId: string): Promise<string | undefined> {
    return this.#tabs.claim(sessionId, tabId);
  }

  async releaseTab(executorId: string, tabId: string): Promise<string | undefined> {
    const owner = this.#tabs.release(executorId, tabId);
    if (owner === undefined) return undefined;
    await this.#updateSession(owner, (session) => (session.currentTabId === tabId ? (withCurrentTab(session, undefined) as StoredSession) : undefined));
    return owner;
  }

  async getTabOwner(executorId: string, tabId: string): Promise<string | undefined> {
    return this.#tabs.owner(executorId, tabId);
  }

  listTabs(sessionId: string): Promise<string[]> {
    return this.#tabs.list(sessionId);
  }

  /** Drops the tab claims of sessions that ended elsewhere (held-tabs.ts); returns how many. */
  pruneTabs(): Promise<number> {
    return this.#tabs.prune();
  }

  createState(state: StateRecord): Promise<boolean> {
    return this.#states.createState(state);
  }

  getState(owner: string): Promise<StateRecord | undefined> {
    return this.#states.getState(owner);
  }

  listStates(): Promise<StateRecord[]> {
    return this.#states.listStates();
  }

  updateState(owner: string, handle: string, change: (state: StateRecord) => StateRecord | undefined): Promise<StateRecord | undefined> {
    return this.#states.updateState(owner, handle, change);
  }

  /**
   * Tidies this instance's parts of kept states (kv-states.ts): those that ended deleted, those another kept at the
   * same moment outranks returned as `superseded` sessions, for the sweep to close.
   */
  tidyStates(): Promise<{ deleted: number; superseded: string[] }> {
    return this.#states.tidy();
  }

  /**
   * Rewrites the session's current version at the revision it was read, when it is this instance's (retried when it
   * was written in between); another instance's version is its own to write, and the browser is the truth of its tabs.
   */
  async #updateSession(sessionId: string, change: (session: StoredSession) => StoredSession | undefined): Promise<void> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = currentVersion(await this.#reader.versions(sessionId));
      if (current === undefined || current.instance !== this.#self || current.record.ended === true) return;
      const next = change(current.record);
      if (next === undefined) return;
      try {
        this.#reader.wrote(current.key, await this.kv.update(current.key, JSON.stringify(next), current.revision), next);
        return;
      } catch (error) {
        rethrowUnavailable(error);
        // written since we read it: read again
      }
    }
    throw new Error(`session ${sessionId} is being written by too many instances at once; try again`);
  }

  #keys(filter: string): Promise<string[]> {
    // The listing reads the stream past the KV methods, which alone say at once that NATS is away.
    return unlessDown(this.down, () => listKeys(this.kv, filter));
  }
}
