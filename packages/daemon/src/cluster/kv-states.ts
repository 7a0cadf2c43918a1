import type { KV, KvEntry } from '@nats-io/kv';
import type { StateHolder, StateRecord } from '../router/store.js';
import { rethrowUnavailable } from './kv-unavailable.js';
import { live, MAX_CAS_ATTEMPTS } from './keys.js';
import { fromToken, INSTANCE_ID_PATTERN, token } from './names.js';
import { CLOCK_SKEW_MS } from './session-versions.js';
import type { UserProofs } from './user-proofs.js';

// `k.<instance>.<owner>` holds that instance's part of a kept browser state.
const partKey = (instance: string, owner: string): string => `k.${instance}.${token(owner)}`;
const partsFilter = (owner?: string): string => `k.*.${owner === undefined ? '*' : token(owner)}`;

/** Parts not believed whose telling is remembered (the oldest forgotten past it). */
const MAX_TOLD = 1_000;

/** One instance's part of a kept state: the state's facts, that instance's holders, and when the state was kept. */
interface StoredPart extends StateRecord {
  /** When the state was kept (ms): the newest kept state of an owner is its state. */
  readonly made: number;
  /**
   * Other instances' parts whose holders this instance dropped (`<instance>@<revision>`: those of an instance that
   * died, which never releases them); a part written since counts again.
   */
  readonly dropped?: readonly string[];
  readonly proof?: string;
}

interface Part {
  readonly instance: string;
  readonly key: string;
  readonly revision: number;
  readonly part: StoredPart;
}

/** What the kept states of a cluster read of the rest of the store and the cluster. */
export interface KvStatesOptions {
  /** `keys`: the bucket's keys matching a filter, as the store lists them. */
  readonly keys: (filter: string) => Promise<string[]>;
  /** This instance: the only one whose part it writes (nats-config's permissions: `k.<instance>.>`). */
  readonly self: string;
  /** Whether its part keeps only the holders of this instance's connections (a cluster's), or every holder. */
  readonly ownHoldersOnly: boolean;
  /** Whether a session is open: a state whose session ended is none. */
  readonly sessionOpen: (sessionId: string) => Promise<boolean>;
  /** Proofs of parts, where the daemons share a token secret (user-proofs.ts). */
  readonly proofs?: UserProofs | undefined;
  readonly onUnproven?: ((owner: string) => void) | undefined;
}

/**
 * The kept browser states of the router's bucket (KvRouterStore's). A state
 * is the parts its instances wrote, each under its own key (`k.<instance>.<owner>`, which NATS lets only that
 * instance write): the newest kept state of the owner whose session is still open, held by the holders of its parts
 * (less those of a dead instance's part that another instance dropped), idle since the last of them left. Where the daemons share a token secret, each part carries a
 * daemon's proof of all of it and of its instance (user-proofs.ts), and a part without it does not count: one daemon's
 * NATS seed alone can neither point one key's state at another key's session (whose cookies and tabs a take-up would
 * hand over) nor write, delete or copy another instance's part; only its own instance's part is its to write back.
 */
export class KvStates {
  /** Parts not believed that were told to `onUnproven`, by key and revision. */
  readonly #told = new Set<string>();

  constructor(
    private readonly kv: KV,
    private readonly o: KvStatesOptions,
  ) {}

  /** Adds the owner's kept state unless it has one; of two instances keeping one at once, the newer wins. */
  async createState(state: StateRecord): Promise<boolean> {
    const parts = await this.#parts(state.owner);
    if ((await this.#merge(parts)) !== undefined) return false;
    const own = parts.find((part) => part.instance === this.o.self);
    const written = await this.#write(state.owner, own, this.#partOf(state, Date.now(), undefined));
    if ((await this.getState(state.owner))?.handle === state.handle) return true;
    await this.#delete(written).catch(() => undefined);
    return false;
  }

  async getState(owner: string): Promise<StateRecord | undefined> {
    return this.#merge(await this.#parts(owner));
  }

  async listStates(): Promise<StateRecord[]> {
    const states: StateRecord[] = [];
    for (const [owner, keys] of await this.#keysByOwner(partsFilter())) {
      const state = await this.#merge(await this.#parts(owner, keys));
      if (state !== undefined) states.push(state);
    }
    return states;
  }

  /** The parts' keys matching `filter`, by owner: one listing for every state. */
  async #keysByOwner(filter: string): Promise<Map<string, string[]>> {
    const byOwner = new Map<string, string[]>();
    for (const key of await this.o.keys(filter)) {
      const named = parsePartKey(key);
      if (named !== undefined) byOwner.set(named.owner, [...(byOwner.get(named.owner) ?? []), key]);
    }
    return byOwner;
  }

  /**
   * Tidies this instance's parts: deletes those that no longer count (of a state that ended, or that another kept at
   * the same moment outranks: its session, still open, is returned in `superseded` for the sweep to close), and writes
   * again one still holding that another instance marked dropped (it took this one for dead), so that it counts.
   */
  async tidy(): Promise<{ deleted: number; superseded: string[] }> {
    const done = { deleted: 0, superseded: [] as string[] };
    for (const [owner] of await this.#keysByOwner(`k.${this.o.self}.*`)) {
      const parts = await this.#parts(owner);
      const own = parts.find((part) => part.instance === this.o.self);
      if (own === undefined) continue;
      const state = await this.#merge(parts);
      if (state?.handle === own.part.handle) {
        const dropped = parts.some((p) => p.part.dropped?.includes(dropMark(own)));
        if (dropped && own.part.holders.length > 0) {
          await this.#write(owner, own, this.#partOf({ ...state, holders: own.part.holders }, own.part.made, own.part, state, own.part.dropped));
        }
        continue;
      }
      if (await this.o.sessionOpen(own.part.sessionId)) done.superseded.push(own.part.sessionId);
      await this.#delete(own).then(
        () => done.deleted++,
        (error: unknown) => rethrowUnavailable(error), // written meanwhile: the next tidy reads it anew
      );
    }
    return done;
  }

  /**
   * At start: this instance's parts hold none of its holders any more (its connections were those of a process that
   * is gone), so each is written again without them, idle from now.
   */
  async releaseAll(): Promise<void> {
    for (const [owner] of await this.#keysByOwner(`k.${this.o.self}.*`)) {
      const own = (await this.#parts(owner)).find((part) => part.instance === this.o.self);
      if (own === undefined || own.part.holders.length === 0) continue;
      const { proof: _proof, made, dropped, ...state } = own.part;
      const part = this.#partOf({ ...state, holders: [], idleSince: Date.now() }, made, own.part, state, dropped);
      await this.#write(owner, own, part).catch(rethrowUnavailable);
    }
  }

  /**
   * Writes `change(state)` as this instance's part (its own holders, its idle time), if the state's handle is still
   * `handle`; `change` returning undefined deletes this instance's part (the caller closes the state's session, which
   * ends it for all). Resolves with the state as it now reads.
   */
  async updateState(owner: string, handle: string, change: (state: StateRecord) => StateRecord | undefined): Promise<StateRecord | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const parts = await this.#parts(owner);
      const state = await this.#merge(parts);
      if (state === undefined || state.handle !== handle) return undefined;
      const next = change(state);
      const own = parts.find((part) => part.instance === this.o.self);
      try {
        if (next === undefined) {
          if (own !== undefined) await this.#delete(own);
          return undefined;
        }
        const made = Math.max(...parts.filter((p) => p.part.handle === handle).map((p) => p.part.made));
        const mine = own?.part.handle === handle ? own.part : undefined;
        const part = this.#partOf(next, made, mine, state, this.#droppedBy(parts, handle, next, mine));
        if (mine === undefined || JSON.stringify({ ...mine, proof: undefined }) !== JSON.stringify({ ...part, proof: undefined })) {
          await this.#write(owner, own, part);
        }
        return await this.getState(owner);
      } catch (error) {
        rethrowUnavailable(error);
        // this instance's part was written meanwhile (a second start under its id): read again
      }
    }
    throw new Error(`the kept state of ${owner} is being written by too many instances at once; try again`);
  }

  /**
   * This instance's part of `state` (what a change made of `before`): its holders (those of its own connections), and
   * since when it has none: the idle time the change set, else the one of its earlier part while that had none too
   * (rewriting it does not put off the state's end), else now.
   */
  #partOf(state: StateRecord, made: number, earlier: StoredPart | undefined, before?: StateRecord, dropped: readonly string[] = []): StoredPart {
    const mine = (holder: StateHolder) => !this.o.ownHoldersOnly || holder.instance === undefined || holder.instance === this.o.self;
    const holders = state.holders.filter(mine);
    const { idleSince: _idle, holders: _all, ...facts } = state;
    let idleSince: number | undefined;
    if (holders.length === 0) {
      const set = state.idleSince !== undefined && state.idleSince !== before?.idleSince ? state.idleSince : undefined;
      const kept = earlier !== undefined && earlier.holders.length === 0 ? earlier.idleSince : undefined;
      idleSince = set ?? kept ?? state.idleSince ?? Date.now();
    }
    const part = { ...facts, holders, ...(idleSince !== undefined ? { idleSince } : {}), made, ...(dropped.length > 0 ? { dropped } : {}) };
    return this.o.proofs === undefined ? part : { ...part, proof: this.o.proofs.statePart(this.o.self, part) };
  }

  /**
   * The other parts of the state (`handle`) none of whose holders `next` keeps: dropped by this instance, as they are
   * now (with those it dropped before that still stand as they were).
   */
  #droppedBy(parts: readonly Part[], handle: string, next: StateRecord, earlier: StoredPart | undefined): string[] {
    const kept = new Set(next.holders.map((holder) => holder.id));
    const others = parts.filter((p) => p.part.handle === handle && p.instance !== this.o.self && p.part.holders.length > 0);
    const now = others.filter((p) => !p.part.holders.some((holder) => kept.has(holder.id))).map(dropMark);
    const standing = new Set(others.map(dropMark));
    return [...new Set([...(earlier?.dropped ?? []).filter((mark) => standing.has(mark)), ...now])];
  }

  /**
   * The owner's state from its parts: the newest kept one whose session is open, held by the holders of its parts
   * that no other part dropped, idle (with none) since the latest idle time a part says; its facts as its latest part
   * wrote them.
   */
  async #merge(parts: readonly Part[]): Promise<StateRecord | undefined> {
    const newestFirst = [...parts].sort((a, b) => b.part.made - a.part.made || (a.part.handle < b.part.handle ? -1 : 1));
    for (const handle of new Set(newestFirst.map((p) => p.part.handle))) {
      const ofHandle = parts.filter((p) => p.part.handle === handle);
      const latest = ofHandle.reduce((a, b) => (b.revision > a.revision ? b : a));
      if (!(await this.o.sessionOpen(latest.part.sessionId))) continue;
      const dropped = new Set(ofHandle.flatMap((p) => p.part.dropped ?? []));
      const holders = ofHandle.filter((p) => !dropped.has(dropMark(p))).flatMap((p) => p.part.holders);
      const { made: _made, proof: _proof, holders: _holders, idleSince: _idle, dropped: _dropped, ...facts } = latest.part;
      if (holders.length > 0) return { ...facts, holders };
      const idle = ofHandle.flatMap((p) => (p.part.idleSince !== undefined ? [p.part.idleSince] : []));
      return { ...facts, holders, ...(idle.length > 0 ? { idleSince: Math.max(...idle) } : {}) };
    }
    return undefined;
  }

  /** Every instance's believed part of the owner's state (`keys`: its parts' keys, when listed already). */
  async #parts(owner: string, keys?: readonly string[]): Promise<Part[]> {
    const parts: Part[] = [];
    for (const key of keys ?? (await this.o.keys(partsFilter(owner)))) {
      const named = parsePartKey(key);
      if (named === undefined || named.owner !== owner) continue;
      const part = this.#read(named.instance, owner, key, await this.kv.get(key));
      if (part !== undefined) parts.push(part);
    }
    return parts;
  }

  /** The part an entry holds; undefined when there is none, or none proven for this owner and instance. */
  #read(instance: string, owner: string, key: string, entry: KvEntry | null): Part | undefined {
    if (!live(entry)) return undefined;
    let stored: unknown;
    try {
      stored = entry.json<unknown>();
    } catch {
      stored = undefined;
    }
    const part = stored as StoredPart;
    // Dated ahead of every clock (more than they may differ), a part would shadow the owner's state for ever.
    const shaped =
      typeof stored === 'object' &&
      stored !== null &&
      typeof part.handle === 'string' &&
      typeof part.sessionId === 'string' &&
      Number.isSafeInteger(part.made) &&
      part.made <= Date.now() + CLOCK_SKEW_MS &&
      Array.isArray(part.holders);
    const { proof, ...facts } = shaped ? part : ({} as StoredPart);
    if (!shaped || part.owner !== owner || (this.o.proofs !== undefined && !this.o.proofs.provesStatePart(instance, facts, proof))) {
      this.#tell(owner, key, entry.revision);
      return undefined;
    }
    return { instance, key, revision: entry.revision, part };
  }

  /** Writes this instance's part: over the one it read (at its revision), or new. */
  async #write(owner: string, own: Part | undefined, part: StoredPart): Promise<Part> {
    const key = partKey(this.o.self, owner);
    const value = JSON.stringify(part);
    // Without a believed part of its own, over whatever the key holds (nothing, or a part that did not prove).
    const revision = own !== undefined ? await this.kv.update(key, value, own.revision) : await this.kv.put(key, value);
    return { instance: this.o.self, key, revision, part };
  }

  async #delete(own: Part): Promise<void> {
    await this.kv.delete(own.key, { previousSeq: own.revision });
  }

  /** Tells `onUnproven` of a part not believed, once per revision (the sweep reads every state each heartbeat). */
  #tell(owner: string, key: string, revision: number): void {
    const told = `${key}@${revision}`;
    if (this.#told.has(told)) return;
    if (this.#told.size >= MAX_TOLD) this.#told.delete(this.#told.values().next().value!);
    this.#told.add(told);
    this.o.onUnproven?.(owner);
  }
}

/** How a part is named when another instance drops its holders: a rewrite of it (a new revision) counts again. */
const dropMark = (part: Part): string => `${part.instance}@${part.revision}`;

/** The instance and owner a part's key names; undefined for a key of another shape or spelling. */
function parsePartKey(key: string): { instance: string; owner: string } | undefined {
  const parts = key.split('.');
  if (parts.length !== 3 || parts[0] !== 'k' || !INSTANCE_ID_PATTERN.test(parts[1] ?? '') || !parts[2]) return undefined;
  const owner = fromToken(parts[2]);
  return token(owner) === parts[2] ? { instance: parts[1]!, owner } : undefined;
}
