import {
  HOLD_PROOF_AWAY_MS,
  HOLD_PROOF_CLOCK_SKEW_MS,
  parseBrowserEntry,
  parseInstanceEntry,
  type BrowserEntry,
  type InstanceEntry,
} from '@browsermcp/protocol';
import { KvWatchInclude, type KV, type KvEntry } from '@nats-io/kv';
import { ClaimDisputes, type AskHolding, type LiveClaim } from './claim-disputes.js';
import { HOLD_ORDER_SLACK_MS, holdProofFresh, isHoldProof } from './hold-proofs.js';
import { listKeys } from './keys.js';
import { openedEntry, parsed, storedEntry } from './directory-entries.js';
import type { SealedRecords } from './sealed-records.js';
import type { UserProofs } from './user-proofs.js';
import { localBrowserId, localBrowserName, token, type ClusterNames } from './names.js';

/** Entries without a proof remembered as logged (so that each is logged once). */
const MAX_UNPROVEN = 10_000;

interface Cached {
  readonly revision: number;
  /** When this copy learned it (a refresh does not drop what it learned while the refresh ran). */
  readonly at: number;
  readonly browser?: BrowserEntry | undefined;
  /** The browser entry's claim: the revision at which its instance took the browser. */
  readonly claim?: number | undefined;
  /** An extension browser's entry: the instant of the browser's proof that its instance holds it. */
  readonly heldAt?: number | undefined;
  readonly instance?: InstanceEntry | undefined;
}

/**
 * Which instance holds which browser, and which instances are alive: a KV bucket whose entries expire (bucket TTL)
 * unless their instance's heartbeat writes them again, so a dead instance's entries disappear by themselves.
 *
 * Each instance writes under keys of its own (`i.<instance>`, `b.<instance>.<browser>`), which NATS permissions let
 * only that instance's user write, and an entry is believed only when it names the instance its key does: no daemon
 * can put a browser on another's name. A browser that moved has an entry from each instance for a moment: the one
 * connected holds it, and the instance it left writes that it is away; while more than one says connected, each is
 * asked whether it is (claim-disputes.ts). Among entries of a browser away from all, the later claim holds it.
 *
 * Another instance's entry for an extension browser counts only with the browser's own signature that the instance
 * held it (hold-proofs.ts), made recently enough; among those of a browser away from all, the newest proof holds it.
 * A daemon's credentials can write an entry under its own name, but not the browser's signature.
 *
 * Reads come from a copy kept by a watch (new entries at once) and a full read on every heartbeat (expired ones,
 * which a watch is not told about).
 */
export class BrowserDirectory {
  /** KV key → what it holds, with its revision and when this copy learned it. */
  #entries = new Map<string, Cached>();
  /** Browser id → the keys of its entries (one per instance that has one). */
  #byBrowser = new Map<string, Set<string>>();
  /** This instance's claim on each browser it took. */
  readonly #claims = new Map<string, number>();
  /** The last write of each browser's entry asked for (see #serially). */
  readonly #writing = new Map<string, Promise<void>>();
  #stopWatch: (() => void) | undefined;
  /** Until then a refresh drops no entry: see keepUntil. */
  #keepUntil = 0;
  /** Told when the entry that holds a browser changes whether it is connected, or instance (or appears). */
  onBrowserChange: ((browser: BrowserEntry) => void) | undefined;
  /** Told when more than one instance insists a browser is connected to it: none holds it meanwhile. */
  onContested: ((browserId: string, instanceIds: string[]) => void) | undefined;
  /** Told what went wrong while settling a dispute. */
  onError: ((error: unknown) => void) | undefined;
  /** Told, once per entry until a proven one replaces it, of another instance's entry without the browser's proof. */
  onUnproven: ((browserId: string, instanceId: string) => void) | undefined;
  /** The keys of entries told to onUnproven (the oldest forgotten past MAX_UNPROVEN). */
  readonly #unproven = new Set<string>();
  /**
   * The instant of the newest proof seen for each browser: an older proof, more than clocks differ, holds nothing,
   * connected or away, even once the entry that carried the newer one is gone (a stale proof written again by another
   * daemon's seed).
   */
  readonly #newestProof = new Map<string, number>();
  readonly #disputes = new ClaimDisputes(
    (browserId, record) => {
      const before = this.browser(browserId);
      record();
      this.#changed(browserId, before);
    },
    (browserId, instanceIds) => this.onContested?.(browserId, instanceIds),
    (error) => this.onError?.(error),
  );

  constructor(
    private readonly kv: KV,
    private readonly names: ClusterNames,
    private readonly instanceId: string,
    /** Proofs of an extension's user (user-proofs.ts): made for this instance's entries, required of the others'. */
    private readonly userProofs?: UserProofs,
    /** How an extension's user, name and proofs are kept (directory-entries.ts): sealed where there is a key, else in clear. */
    private readonly sealer?: SealedRecords,
  ) {}

  /** How this directory asks an instance whether a browser is connected to it (set once the node can). */
  set askHolding(ask: AskHolding) {
    this.#disputes.ask = ask;
    // Disputes seen before it could ask (its first read of the directory) are asked now.
    this.#settleAll();
  }

  /**
   * Asks about every browser's disputed claims that are due (claim-disputes.ts): at each refresh, which no longer
   * learns an entry again at the same revision, so a claim that did not answer is still asked again a while later.
   */
  #settleAll(): void {
    for (const browserId of this.#byBrowser.keys()) {
      this.#disputes.settle(
        browserId,
        this.#connected(browserId).map(([, claim]) => claim),
      );
    }
  }

  /** Reads the whole directory, then follows its changes. */
  async start(): Promise<void> {
    await this.refresh();
    const watcher = await this.kv.watch({ include: KvWatchInclude.UpdatesOnly });
    this.#stopWatch = () => watcher.stop();
    void (async () => {
      for await (const entry of watcher) this.#apply(entry.key, entry);
    })().catch(() => undefined);
  }

  stop(): void {
    this.#stopWatch?.();
  }

  /**
   * Drops no entry before `time`: after NATS was away, entries may have expired because no instance could write them,
   * not because their instances died; the live ones write them again within a heartbeat of their own reconnect.
   */
  keepUntil(time: number): void {
    this.#keepUntil = time;
  }

  /**
   * Reads every entry again. What the watch or a write of ours taught this copy while the read ran is kept (the read
   * may have seen it before it changed); what the read no longer finds and nothing refreshed since has expired.
   */
  async refresh(): Promise<void> {
    const started = Date.now();
    const read = new Map<string, KvEntry | null>();
    for (const key of await listKeys(this.kv)) read.set(key, await this.kv.get(key));
    if (started >= this.#keepUntil) {
      for (const [key, cached] of this.#entries) if (!read.has(key) && cached.at < started) this.#set(key, undefined);
    }
    for (const [key, entry] of read) this.#apply(key, entry);
    this.#settleAll();
    for (const [browserId, at] of this.#newestProof) if (started - at > HOLD_PROOF_AWAY_MS + HOLD_PROOF_CLOCK_SKEW_MS) this.#newestProof.delete(browserId);
  }

  /** Learns one entry, unless this copy already knows a newer revision of it; an entry its key does not vouch for is ignored. */
  #apply(key: string, entry: KvEntry | null): void {
    const known = this.#entries.get(key);
    // The same revision is the same entry: a refresh (every heartbeat) neither checks its proof again nor logs it again.
    if (entry === null || (known !== undefined && known.revision >= entry.revision)) return;
    const shape = this.names.parseDirectoryKey(key);
    let browser = shape?.browserId !== undefined ? openedEntry(this.sealer, parsed(entry, parseBrowserEntry)) : undefined;
    if (browser !== undefined && (browser.instanceId !== shape!.instanceId || browser.id !== shape!.browserId)) browser = undefined;
    if (browser !== undefined && !this.#proven(key, browser)) browser = undefined;
    // A daemon's own launched browser is named from its instance, not by what the entry says.
    if (browser?.kind === 'local') browser = { ...browser, name: localBrowserName(browser.instanceId) };
    let instance = shape !== undefined && shape.browserId === undefined ? parsed(entry, parseInstanceEntry) : undefined;
    if (instance !== undefined && instance.instanceId !== shape!.instanceId) instance = undefined;
    // A deleted entry stays as a tombstone with its revision, so an older read cannot bring it back.
    this.#set(
      key,
      { revision: entry.revision, at: Date.now(), browser, claim: browser && (browser.claim ?? entry.revision), heldAt: browser?.hold?.at, instance },
      shape?.browserId,
    );
  }

  /**
   * Whether an entry is believed as to who wrote it: a daemon's own browser only under its own id; an extension's
   * entry of this instance only while this process holds its claim (not one its credentials wrote from elsewhere), of
   * another instance only with the browser's signature that the instance held it, for the user the entry names.
   */
  #proven(key: string, browser: BrowserEntry): boolean {
    if (browser.kind !== 'extension') return browser.id === localBrowserId(browser.instanceId);
    if (browser.instanceId === this.instanceId) return this.#claims.has(browser.id);
    if (isHoldProof(browser.id, browser.instanceId, browser.userId, browser.hold) && this.#userProven(browser)) {
      this.#unproven.delete(key);
      this.#proofSeen(browser.id, browser.hold!.at);
      return true;
    }
    if (!this.#unproven.has(key)) {
      if (this.#unproven.size >= MAX_UNPROVEN) this.#unproven.delete(this.#unproven.values().next().value!);
      this.#unproven.add(key);
      this.onUnproven?.(browser.id, browser.instanceId);
    }
    return false;
  }

  /**
   * Whether an extension entry's user is proven by the instance holding it (always, without proofs or a user), and
   * where the daemons seal, its user and name came sealed (in clear, its name would be anyone's word).
   */
  #userProven(browser: BrowserEntry): boolean {
    if (this.sealer !== undefined && browser.sealed === undefined) return false;
    return this.userProofs === undefined || browser.userId === null || this.userProofs.provesBrowser(browser, browser.userProof);
  }

  /** This instance's entry as written: an extension's with the proof of its user. */
  #vouched(browser: BrowserEntry): BrowserEntry {
    const { userProof: _old, sealed: _sealed, ...entry } = browser;
    if (this.userProofs === undefined || entry.kind !== 'extension' || entry.userId === null) return entry;
    return { ...entry, userProof: this.userProofs.browser(entry) };
  }

  /** Raises the browser's newest proof; one dated ahead (which holds nothing yet) does not. */
  #proofSeen(browserId: string, at: number): void {
    if (at > Date.now() + HOLD_PROOF_CLOCK_SKEW_MS) return;
    if (at > (this.#newestProof.get(browserId) ?? 0)) this.#newestProof.set(browserId, at);
  }

  /** Replaces (or with undefined forgets) one key's entry, and tells who listens when the browser's holder changed. */
  #set(key: string, value: Cached | undefined, browserId = this.#entries.get(key)?.browser?.id ?? this.names.parseDirectoryKey(key)?.browserId): void {
    const before = browserId === undefined ? undefined : this.browser(browserId);
    if (value === undefined) this.#entries.delete(key);
    else this.#entries.set(key, value);
    if (browserId === undefined) return;
    const keys = this.#byBrowser.get(browserId) ?? new Set<string>();
    if (value === undefined) keys.delete(key);
    else keys.add(key);
    if (keys.size === 0) this.#byBrowser.delete(browserId);
    else this.#byBrowser.set(browserId, keys);
    this.#changed(browserId, before);
  }

  /** Tells who listens when the browser's holder changed from `before`; asks about claims in dispute. */
  #changed(browserId: string, before: BrowserEntry | undefined): void {
    this.#disputes.settle(
      browserId,
      this.#connected(browserId).map(([, claim]) => claim),
    );
    const after = this.browser(browserId);
    if (after !== undefined && (before?.connected !== after.connected || before.instanceId !== after.instanceId)) this.onBrowserChange?.(after);
  }

  #learn(key: string, revision: number, value: Pick<Cached, 'browser' | 'claim' | 'heldAt' | 'instance'>): void {
    const known = this.#entries.get(key);
    if (known === undefined || known.revision <= revision) this.#set(key, { revision, at: Date.now(), ...value });
  }

  /** A browser's entries that count now, by key: another instance's extension entry only with a fresh proof. */
  #entriesOf(browserId: string): Array<[string, Cached]> {
    const now = Date.now();
    return [...(this.#byBrowser.get(browserId) ?? [])].flatMap((key) => {
      const cached = this.#entries.get(key);
      const browser = cached?.browser;
      if (browser === undefined) return [];
      const mine = browser.instanceId === this.instanceId;
      if (!mine && browser.kind === 'extension') {
        const heldAt = cached!.heldAt ?? 0;
        if (!holdProofFresh(heldAt, browser.connected, now)) return [];
        if (heldAt < (this.#newestProof.get(browserId) ?? 0) - HOLD_ORDER_SLACK_MS) return [];
      }
      return [[key, cached!] as [string, Cached]];
    });
  }

  /**
   * How late an entry's claim on its browser is: an extension's by its proof's instant, a daemon's own launched
   * browser's by its claim (only that daemon's entries for it count).
   */
  #rank(cached: Cached): number {
    return cached.browser?.kind === 'extension' ? (cached.heldAt ?? 0) : (cached.claim ?? 0);
  }

  /** The entries that say the browser is connected to their instance, with their claims. */
  #connected(browserId: string): Array<[Cached, LiveClaim]> {
    return this.#entriesOf(browserId).flatMap(([key, cached]) =>
      cached.browser!.connected
        ? [[cached, { key, instanceId: cached.browser!.instanceId, claim: cached.claim ?? cached.revision }] as [Cached, LiveClaim]]
        : [],
    );
  }

  /** Those of them that count: all when one or none, else all but those whose instance said no when asked. */
  #live(browserId: string): Array<[string, Cached]> {
    const connected = this.#connected(browserId);
    const out = connected.map(([cached, claim]) => [claim.key, cached] as [string, Cached]);
    if (connected.length < 2) return out;
    const counted = new Set(
      this.#disputes
        .counted(
          browserId,
          connected.map(([, claim]) => claim),
        )
        .map((claim) => claim.key),
    );
    return out.filter(([key]) => counted.has(key));
  }

  /**
   * The entry that holds the browser: the one connected; none while more than one says so and they have not all
   * been asked, or more than one insists; when it is away from all, the later claim (shown away, whatever it says).
   */
  #holder(browserId: string): BrowserEntry | undefined {
    const live = this.#live(browserId);
    if (live.length > 0) return live.length === 1 ? live[0]![1].browser : undefined;
    let best: Cached | undefined;
    for (const [, cached] of this.#entriesOf(browserId)) if (best === undefined || this.#rank(cached) > this.#rank(best)) best = cached;
    return best && { ...best.browser!, connected: false };
  }

  /** The entry of the instance that holds the browser now. */
  browser(executorId: string): BrowserEntry | undefined {
    return this.#holder(executorId);
  }

  /**
   * The entry of another instance than `instanceId` that holds the browser; while none does (in dispute), one of
   * another instance that says it is connected there.
   */
  elsewhere(browserId: string, instanceId: string): BrowserEntry | undefined {
    const holder = this.#holder(browserId);
    if (holder !== undefined) return holder.instanceId === instanceId ? undefined : holder;
    return this.#connected(browserId).find(([cached]) => cached.browser!.instanceId !== instanceId)?.[0].browser;
  }

  /**
   * Whether `instanceId` has an entry for the browser that counts (it holds it, held it until lately, or says so in a
   * dispute): what another instance's word about the browser, such as its events, needs.
   */
  heldBy(browserId: string, instanceId: string): boolean {
    return this.#entriesOf(browserId).some(([, cached]) => cached.browser!.instanceId === instanceId);
  }

  /** Whether any instance has an entry for the browser (held, away, or in dispute). */
  claimed(executorId: string): boolean {
    return this.#entriesOf(executorId).length > 0;
  }

  /** Every browser of the cluster, once each, as its holder's entry says. */
  browsers(): BrowserEntry[] {
    return [...this.#byBrowser.keys()].flatMap((id) => {
      const browser = this.browser(id);
      return browser ? [browser] : [];
    });
  }

  instances(): InstanceEntry[] {
    return [...this.#entries.values()].flatMap((cached) => (cached.instance ? [cached.instance] : []));
  }

  async putInstance(instance: InstanceEntry): Promise<void> {
    const key = this.names.instanceKey(this.instanceId);
    this.#learn(key, await this.kv.put(key, JSON.stringify(instance)), { instance });
  }

  async deleteInstance(): Promise<void> {
    await this.kv.delete(this.names.instanceKey(this.instanceId));
  }

  /** This instance takes the browser (it connected here): its entry's revision is its claim, later than any before. */
  claimBrowser(browser: BrowserEntry): Promise<void> {
    return this.#serially(browser.id, () => this.#claim(browser));
  }

  /** Writes this instance's entry for the browser again, keeping its claim (or claiming it, the first time). */
  putBrowser(browser: BrowserEntry): Promise<void> {
    return this.#serially(browser.id, () => this.#put(browser));
  }

  /**
   * Writes this instance's entry for the browser again; returns the browser's holder as the entries in the store now
   * say (another instance when the browser, away from here, connected there, or was claimed there later). Connected
   * here, this instance holds it whatever another entry says: asked, it says so (claim-disputes.ts).
   */
  refreshBrowserIf(browser: BrowserEntry): Promise<string> {
    return this.#serially(browser.id, async () => {
      for (const key of await listKeys(this.kv, `b.*.${token(browser.id)}`)) {
        if (key !== this.names.browserKey(this.instanceId, browser.id)) this.#apply(key, await this.kv.get(key));
      }
      const mine: Cached = { revision: 0, at: 0, browser, claim: this.#claims.get(browser.id) ?? 0, heldAt: browser.hold?.at };
      const live = new Set(this.#live(browser.id).map(([key]) => key));
      const moved = browser.connected
        ? undefined
        : this.#entriesOf(browser.id).find(
            ([key, other]) => other.browser!.instanceId !== this.instanceId && (live.has(key) || this.#rank(other) > this.#rank(mine)),
          );
      // Written even when it moved: an entry of ours that still said connected would keep the browser in dispute.
      await this.#put(browser);
      return moved === undefined ? this.instanceId : moved[1].browser!.instanceId;
    });
  }

  /** Deletes this instance's entry for the browser (another instance's entry for it, if any, is that one's). */
  deleteBrowser(executorId: string): Promise<void> {
    return this.#serially(executorId, async () => {
      const key = this.names.browserKey(this.instanceId, executorId);
      this.#claims.delete(executorId);
      await this.kv.delete(key).catch(() => undefined);
      this.#set(key, undefined, executorId);
      // (the watch brings its tombstone)
    });
  }

  async #claim(browser: BrowserEntry): Promise<void> {
    const key = this.names.browserKey(this.instanceId, browser.id);
    const { claim: _old, ...entry } = this.#vouched(browser);
    const revision = await this.kv.put(key, JSON.stringify(storedEntry(this.sealer, entry)));
    this.#claims.set(browser.id, revision);
    if (entry.hold !== undefined) this.#proofSeen(browser.id, entry.hold.at);
    this.#learn(key, revision, { browser: entry, claim: revision, heldAt: entry.hold?.at });
  }

  async #put(browser: BrowserEntry): Promise<void> {
    const claim = this.#claims.get(browser.id);
    if (claim === undefined) return this.#claim(browser);
    const key = this.names.browserKey(this.instanceId, browser.id);
    const entry = { ...this.#vouched(browser), claim };
    if (entry.hold !== undefined) this.#proofSeen(browser.id, entry.hold.at);
    this.#learn(key, await this.kv.put(key, JSON.stringify(storedEntry(this.sealer, entry))), { browser: entry, claim, heldAt: entry.hold?.at });
  }

  /**
   * Runs the writes of one browser's entry one at a time, in the order they were asked for: a reconnect's claim must
   * not be overtaken by the "away" of the drop before it, which reads the store first.
   */
  #serially<T>(browserId: string, write: () => Promise<T>): Promise<T> {
    const run = (this.#writing.get(browserId) ?? Promise.resolve()).then(write, write);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.#writing.set(browserId, tail);
    void tail.then(() => {
      if (this.#writing.get(browserId) === tail) this.#writing.delete(browserId);
    });
    return run;
  }
}
