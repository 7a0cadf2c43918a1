import { randomBytes } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import type { StateRecord } from '../router/store.js';
import { createUnlessLive, live, MAX_CAS_ATTEMPTS } from './keys.js';
import { fromToken, token } from './names.js';

// `k.<owner>` holds a kept browser state; `x.<name>` a secret the daemons share (only they may read the bucket).
const stateKey = (owner: string): string => `k.${token(owner)}`;
const secretKey = (name: string): string => `x.${token(name)}`;

/** The kept browser states of the router's bucket, and the secrets the daemons share there (KvRouterStore's). */
export class KvStates {
  /** `keys`: the bucket's keys matching a filter, as the store lists them. */
  constructor(
    private readonly kv: KV,
    private readonly keys: (filter: string) => Promise<string[]>,
  ) {}

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

  createState(state: StateRecord): Promise<boolean> {
    return createUnlessLive(this.kv, stateKey(state.owner), state);
  }

  async getState(owner: string): Promise<StateRecord | undefined> {
    const entry = await this.kv.get(stateKey(owner));
    return live(entry) ? entry.json<StateRecord>() : undefined;
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
}
