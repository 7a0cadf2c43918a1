import { generateWireId } from '@browsermcp/protocol';
import type { Deadlines } from '../deadlines';
import { TooManyStatesError } from '../errors';
import { checkDelay, checkId } from './checks';
import type { RouterStore, StateHolder, StateRecord } from './store';
import type { RouterLogger } from './types';

export interface KeptStatesOptions {
  readonly store: RouterStore;
  /** The router's one keyed timer; these states' keys are "state:<owner>". */
  readonly deadlines: Deadlines<string>;
  readonly logger: RouterLogger;
  /** Closes a kept state's daemon session with its tabs (SessionRouter.closeSession). */
  readonly closeSession: (sessionId: string) => Promise<boolean>;
  /** Throws RouterClosed once the router is closed. */
  readonly assertOpen: () => void;
  readonly isClosed: () => boolean;
  /** Most states kept at once (RouterOptions.maxBrowserStates). */
  readonly max: number;
}

/**
 * Browser state kept beyond one client session: a daemon session held by one or more holders (client sessions or
 * connections) and closed once it has waited its keepMs with none. Records live in the store (a cluster shares them);
 * the idle timers live here.
 */
export class KeptStates {
  readonly #options: KeptStatesOptions;

  constructor(options: KeptStatesOptions) {
    this.#options = options;
  }

  /**
   * Takes up `owner`'s kept browser state for one more holder: resolves with it (its `sessionId` is the daemon session
   * to drive), or undefined when the owner has none, or its session is gone (its browser did not come back).
   */
  async take(owner: string, holder: StateHolder): Promise<StateRecord | undefined> {
    this.#options.assertOpen();
    checkId(owner, 'owner');
    checkId(holder?.id, 'holder.id');
    const { store } = this.#options;
    const state = await store.getState(owner);
    if (state === undefined) return undefined;
    if ((await store.getSession(state.sessionId)) === undefined) {
      await store.updateState(owner, state.handle, () => undefined);
      return undefined;
    }
    this.#clearTimer(owner);
    return store.updateState(owner, state.handle, ({ idleSince: _idle, ...rest }) => ({
      ...rest,
      holders: [...rest.holders.filter((h) => h.id !== holder.id), holder],
    }));
  }

  /**
   * Throws TooManyStates when the store keeps the most states it may: asked before a session is opened to be kept
   * (so a refused one leaves nothing open). Two owners at the limit at once may both pass: it bounds, it does not count.
   */
  async checkRoom(): Promise<void> {
    this.#options.assertOpen();
    const count = (await this.#options.store.listStates()).length;
    if (count >= this.#options.max) throw new TooManyStatesError(count, this.#options.max);
  }

  /**
   * Keeps the open session `sessionId` as `owner`'s browser state, held by `holder`, for `keepMs` after its last
   * holder leaves. Undefined if the owner has a state already (another of its sessions kept one first).
   */
  async keep(
    owner: string,
    sessionId: string,
    keepMs: number,
    holder: StateHolder,
    listed: { principal?: string | undefined; name?: string | undefined } = {},
  ): Promise<StateRecord | undefined> {
    this.#options.assertOpen();
    checkId(owner, 'owner');
    checkId(sessionId, 'sessionId');
    checkId(holder?.id, 'holder.id');
    const state: StateRecord = {
      handle: generateWireId(),
      owner,
      sessionId,
      keepMs: checkDelay(keepMs, 'keepMs', 0, 1),
      holders: [holder],
      ...(listed.principal !== undefined ? { principal: listed.principal } : {}),
      ...(listed.name !== undefined ? { name: listed.name } : {}),
    };
    return (await this.#options.store.createState(state)) ? state : undefined;
  }

  /** The kept states of one principal (those kept with it), for its client to list. */
  async of(principal: string): Promise<StateRecord[]> {
    this.#options.assertOpen();
    checkId(principal, 'principal');
    return (await this.#options.store.listStates()).filter((s) => s.principal === principal);
  }

  /** Closes `owner`'s kept state now, whoever holds it: its session closes with its tabs. False when it had none. */
  async close(owner: string): Promise<boolean> {
    this.#options.assertOpen();
    checkId(owner, 'owner');
    const { store } = this.#options;
    const state = await store.getState(owner);
    if (state === undefined) return false;
    this.#clearTimer(owner);
    await store.updateState(owner, state.handle, () => undefined);
    await this.#options.closeSession(state.sessionId).catch(() => undefined);
    return true;
  }

  /** A holder of a kept state left; with none left it waits its keepMs for the next, then its session closes. */
  async release(owner: string, handle: string, holderId: string): Promise<void> {
    this.#options.assertOpen();
    await this.#dropHolders(owner, handle, (h) => h.id === holderId);
  }

  /**
   * Drops the holders `gone` picks from every kept state (a cluster: those on instances that died, which will never
   * release), then closes the states that waited their whole keepMs without a holder.
   */
  async expire(gone: (holder: StateHolder) => boolean = () => false): Promise<void> {
    for (const state of await this.#options.store.listStates()) {
      if (state.holders.some(gone)) await this.#dropHolders(state.owner, state.handle, gone);
      else if (stateDue(state) <= 0) await this.#expire(state);
    }
  }

  async #dropHolders(owner: string, handle: string, drop: (holder: StateHolder) => boolean): Promise<void> {
    const state = await this.#options.store.updateState(owner, handle, (s) => {
      const holders = s.holders.filter((h) => !drop(h));
      if (holders.length === s.holders.length) return s;
      return holders.length > 0 ? { ...s, holders } : { ...s, holders, idleSince: Date.now() };
    });
    if (state?.holders.length === 0) this.#expireLater(state);
  }

  #expireLater(state: StateRecord): void {
    this.#options.deadlines.set(`state:${state.owner}`, Math.max(0, stateDue(state)), () => {
      void this.#expire(state).catch((error: unknown) => this.#options.logger.warn({ owner: state.owner, error }, 'could not close a kept browser state'));
    });
  }

  async #expire(state: StateRecord): Promise<void> {
    if (this.#options.isClosed()) return;
    let expired = false;
    const now = await this.#options.store.updateState(state.owner, state.handle, (s) => {
      expired = stateDue(s) <= 0;
      return expired ? undefined : s;
    });
    if (expired) await this.#options.closeSession(state.sessionId).catch(() => undefined);
    else if (now?.holders.length === 0) this.#expireLater(now);
  }

  #clearTimer(owner: string): void {
    this.#options.deadlines.clear(`state:${owner}`);
  }
}

/** A named kept state as its client lists it: its name, whether it is in use, and, unused, ms until it closes. */
export function listedState(state: StateRecord): { name: string; inUse: boolean; closesInMs?: number } | undefined {
  if (state.name === undefined) return undefined;
  const due = stateDue(state);
  return { name: state.name, inUse: state.holders.length > 0, ...(Number.isFinite(due) ? { closesInMs: Math.max(0, Math.round(due)) } : {}) };
}

/** Ms until an unused kept state is due to close (≤ 0: due now); Infinity while it has holders. */
export function stateDue(state: StateRecord): number {
  if (state.holders.length > 0 || state.idleSince === undefined) return Infinity;
  return state.idleSince + state.keepMs - Date.now();
}
