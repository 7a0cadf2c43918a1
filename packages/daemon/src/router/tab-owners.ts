import { InvalidArgumentError } from '../errors';

/** The most tabs of one browser this process keeps claims for (a browser with more is refused its next claim). */
export const MAX_TABS_PER_BROWSER = 10_000;

/**
 * Which session owns each tab of the browsers this process holds (executorId → tabId → sessionId). Kept in memory by
 * the process that holds the browser, in a cluster too: only it runs the browser's commands and hears its tabs open
 * and close, so no other daemon (nor another daemon's credentials) writes or needs its claims.
 */
export class TabOwners {
  readonly #tabs = new Map<string, Map<string, string>>();

  owner(executorId: string, tabId: string): string | undefined {
    return this.#tabs.get(executorId)?.get(tabId);
  }

  /**
   * Gives the tab to the session unless a live session owns it (`isLive`: whether its owner is still open); returns
   * the owner afterwards.
   */
  claim(executorId: string, sessionId: string, tabId: string, isLive: (sessionId: string) => boolean): string {
    let tabs = this.#tabs.get(executorId);
    if (tabs === undefined) {
      tabs = new Map();
      this.#tabs.set(executorId, tabs);
    }
    const owner = tabs.get(tabId);
    if (owner !== undefined && owner !== sessionId && isLive(owner)) return owner;
    if (owner === undefined && tabs.size >= MAX_TABS_PER_BROWSER) {
      throw new InvalidArgumentError(`browser ${executorId} has ${tabs.size} tabs claimed, the most a daemon keeps; close some of its sessions' tabs`);
    }
    tabs.set(tabId, sessionId);
    return sessionId;
  }

  /** Forgets a tab; returns its former owner. */
  release(executorId: string, tabId: string): string | undefined {
    const tabs = this.#tabs.get(executorId);
    const owner = tabs?.get(tabId);
    if (tabs === undefined || owner === undefined) return undefined;
    tabs.delete(tabId);
    if (tabs.size === 0) this.#tabs.delete(executorId);
    return owner;
  }

  /** The tabs a session owns in the executor's browser. */
  list(executorId: string, sessionId: string): string[] {
    const tabs = this.#tabs.get(executorId);
    if (tabs === undefined) return [];
    return [...tabs].filter(([, owner]) => owner === sessionId).map(([tabId]) => tabId);
  }

  /** Every claim, for a sweep of those whose session ended elsewhere. */
  *entries(): IterableIterator<{ executorId: string; tabId: string; sessionId: string }> {
    for (const [executorId, tabs] of this.#tabs) for (const [tabId, sessionId] of tabs) yield { executorId, tabId, sessionId };
  }

  /** Forgets every tab of a session that ended. */
  forget(executorId: string, sessionId: string): void {
    const tabs = this.#tabs.get(executorId);
    if (tabs === undefined) return;
    for (const [tabId, owner] of tabs) if (owner === sessionId) tabs.delete(tabId);
    if (tabs.size === 0) this.#tabs.delete(executorId);
  }
}
