import { randomBytes } from 'node:crypto';
import type { KV, KvEntry } from '@nats-io/kv';
import type { StateRecord } from '../router/store.js';
import { rethrowUnavailable } from './kv-unavailable.js';
import { live, MAX_CAS_ATTEMPTS } from './keys.js';
import { fromToken, token } from './names.js';
import type { UserProofs } from './user-proofs.js';

// `k.<owner>` holds a kept browser state; `x.<name>` a secret the daemons share (only they may read the bucket).
const stateKey = (owner: string): string => `k.${token(owner)}`;
const secretKey = (name: string): string => `x.${token(name)}`;

/** States not believed whose telling is remembered (the oldest forgotten past it). */
const MAX_TOLD = 1_000;

/** A kept state as the bucket holds it: with the proof of what it is, where the daemons share a token secret. */
interface StoredState extends StateRecord {
  readonly proof?: string;
}

/**
 * The kept browser states of the router's bucket, and the secrets the daemons share there (KvRouterStore's). Every
 * daemon may write a state (each instance using it rewrites its holders), so where the daemons share a token secret a
 * state carries a daemon's proof of whose it is and which session holds it (user-proofs.ts): one daemon's NATS seed
 * alone cannot point one key's state at another key's session, whose browser state (cookies, tabs) a take-up would
 * then hand over. A state without that proof reads as none, and a new one may be kept in its place.
 */
export class KvStates {
  /** States not believed that were told to `onUnproven`, by owner and revision. */
  readonly #told = new Set<string>();

  /** `keys`: the bucket's keys matching a filter, as the store lists them. */
  constructor(
    private readonly kv: KV,
    private readonly keys: (filter: string) => Promise<string[]>,
    private readonly proofs?: UserProofs,
    private readonly onUnproven?: (owner: string) => void,
  ) {}

  /** The cluster's secret `name`: made by the first daemon that asks (create-if-absent), read by the others. */
  async sharedSecret(name: string): Promise<Uint8Array> {
    const key = secretKey(name);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      if (live(entry)) return Buffer.from(entry.string(), 'base64url');
      try {
        await this.kv.create(key, randomBytes(32).toString('base64url'));
      } catch (error) {
        rethrowUnavailable(error);
        // another daemon made it first: read theirs
      }
    }
    throw new Error(`the cluster's ${name} secret could not be read or made; is the router bucket writable?`);
  }

  /** Adds the owner's kept state unless it has one (one without its proof, where states are proven, does not count). */
  async createState(state: StateRecord): Promise<boolean> {
    const key = stateKey(state.owner);
    const value = JSON.stringify(this.#proven(state));
    try {
      await this.kv.create(key, value);
      return true;
    } catch (error) {
      const entry = await this.kv.get(key);
      if (!live(entry)) throw error;
      if (this.#read(state.owner, entry) !== undefined) return false;
      // Written over at the revision read: of two daemons replacing it, one wins.
      return this.kv.update(key, value, entry.revision).then(
        () => true,
        () => false,
      );
    }
  }

  async getState(owner: string): Promise<StateRecord | undefined> {
    return this.#read(owner, await this.kv.get(stateKey(owner)));
  }

  async listStates(): Promise<StateRecord[]> {
    const states: StateRecord[] = [];
    for (const key of await this.keys('k.*')) {
      const state = await this.getState(fromToken(key.slice(2)));
      if (state !== undefined) states.push(state);
    }
    return states;
  }

  async updateState(owner: string, handle: string, change: (state: StateRecord) => StateRecord | undefined): Promise<StateRecord | undefined> {
    const key = stateKey(owner);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      const state = this.#read(owner, entry);
      if (state === undefined || state.handle !== handle) return undefined;
      const next = change(state);
      try {
        if (next === undefined) await this.kv.delete(key, { previousSeq: entry!.revision });
        else await this.kv.update(key, JSON.stringify(this.#proven(next)), entry!.revision);
        return next;
      } catch (error) {
        rethrowUnavailable(error);
        // written by another instance since we read it: read again
      }
    }
    throw new Error(`the kept state of ${owner} is being written by too many instances at once; try again`);
  }

  /** Tells `onUnproven` of a state not believed, once per revision (the sweep reads every state each heartbeat). */
  #tell(owner: string, revision: number): void {
    const told = `${owner}@${revision}`;
    if (this.#told.has(told)) return;
    if (this.#told.size >= MAX_TOLD) this.#told.delete(this.#told.values().next().value!);
    this.#told.add(told);
    this.onUnproven?.(owner);
  }

  /** The state as the bucket keeps it: with its proof, where states are proven. */
  #proven(state: StateRecord): StoredState {
    return this.proofs === undefined ? state : { ...state, proof: this.proofs.state(state) };
  }

  /** The owner's state in `entry`, without its proof; undefined when there is none, or none proven for this owner. */
  #read(owner: string, entry: KvEntry | null): StateRecord | undefined {
    if (!live(entry)) return undefined;
    let stored: StoredState;
    try {
      stored = entry.json<StoredState>();
    } catch {
      return undefined;
    }
    const { proof, ...state } = stored;
    if (state.owner !== owner || (this.proofs !== undefined && !this.proofs.provesState(state, proof))) {
      this.#tell(owner, entry.revision);
      return undefined;
    }
    return state;
  }
}
