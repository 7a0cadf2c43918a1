import type { SessionRecord } from '../router/store.js';
import { TabOwners } from '../router/tab-owners.js';

/** What the tab claims of a cluster's instance read of its store. */
export interface HeldTabsStore {
  /** The session as this instance may act on it (believed), or undefined once it ended or was never open. */
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** The session as cleanup goes by: undefined only once it ended or is gone (not while its version ran out). */
  getSessionUnchecked(sessionId: string): Promise<SessionRecord | undefined>;
}

/**
 * The tab claims of the browsers this instance holds, in its memory (router/tab-owners.ts): only the instance that
 * holds a browser claims, releases and checks its tabs, so no shared key is left for another daemon's credentials to
 * rewrite. A browser that moves reports its tabs to its new instance, which claims them anew (executors.ts). A claim of
 * a session that ended elsewhere is dropped at the next claim of its tab, or by `prune` at the sweep.
 */
export class HeldTabs {
  readonly #owners = new TabOwners();

  constructor(private readonly store: HeldTabsStore) {}

  async claim(sessionId: string, tabId: string): Promise<string | undefined> {
    const session = await this.store.getSession(sessionId);
    if (session === undefined) return undefined;
    const { executorId } = session;
    const before = this.#owners.owner(executorId, tabId);
    // Its own already (most commands stay in their tab): nothing claimed, nothing to check again.
    if (before === sessionId) return sessionId;
    const beforeLive = before === undefined || (await this.store.getSessionUnchecked(before)) !== undefined;
    // Another claim that came in meanwhile is one of a live session: only the owner read above was checked.
    const owner = this.#owners.claim(executorId, sessionId, tabId, (held) => held !== before || beforeLive);
    // The session may have ended while it claimed (its claims forgotten then): its tab must not outlive it.
    if (owner === sessionId && (await this.store.getSessionUnchecked(sessionId)) === undefined) {
      if (this.#owners.owner(executorId, tabId) === sessionId) this.#owners.release(executorId, tabId);
      return undefined;
    }
    return owner;
  }

  release(executorId: string, tabId: string): string | undefined {
    return this.#owners.release(executorId, tabId);
  }

  owner(executorId: string, tabId: string): string | undefined {
    return this.#owners.owner(executorId, tabId);
  }

  async list(sessionId: string): Promise<string[]> {
    const session = await this.store.getSession(sessionId);
    return session === undefined ? [] : this.#owners.list(session.executorId, sessionId);
  }

  forget(executorId: string, sessionId: string): void {
    this.#owners.forget(executorId, sessionId);
  }

  /** Drops the claims of sessions that ended (elsewhere, or while this instance did not hear); returns how many. */
  async prune(): Promise<number> {
    const live = new Map<string, boolean>();
    let dropped = 0;
    for (const { executorId, tabId, sessionId } of [...this.#owners.entries()]) {
      // Ended or gone, not merely unbelieved for now (a version that ran out and is renewed keeps its tabs).
      if (!live.has(sessionId)) live.set(sessionId, (await this.store.getSessionUnchecked(sessionId)) !== undefined);
      if (live.get(sessionId) === false && this.#owners.release(executorId, tabId) === sessionId) dropped++;
    }
    return dropped;
  }
}
