/** How long after an agent's action a new tab counts as a popup of its page, and Chrome may still bring it forward. */
export const POPUP_WINDOW_MS = 1500;

/**
 * Where the person is looking, so agents never take it from them: the tabs the person last looked at in each window,
 * and popups of agents' pages just adopted (Chrome brings a page's popup to the front, sometimes a moment later).
 */
export class PersonFocus {
  /** Per window, the tabs the person looked at, newest last. */
  readonly #seen = new Map<number, number[]>();
  /** Popups of agents' pages just adopted, and when. */
  readonly #recentPopups = new Map<number, number>();

  /** `agentTab`: whether a tab is an agent's (the person's focus never goes back to one). */
  constructor(private readonly agentTab: (tabId: number) => boolean) {}

  /** A tab came to the front: the person's choice, unless it is a popup an agent's page just opened. */
  activated(tabId: number, windowId: number): void {
    const popup = this.#recentPopups.get(tabId);
    if (popup !== undefined && Date.now() - popup < POPUP_WINDOW_MS) return void this.giveBack(windowId, tabId);
    const seen = (this.#seen.get(windowId) ?? []).filter((t) => t !== tabId);
    seen.push(tabId);
    this.#seen.set(windowId, seen.slice(-5));
  }

  /** A popup an agent's page opened: if Chrome brings it forward in the next moments, the person's tab goes back in front. */
  popupAdopted(tabId: number): void {
    this.#recentPopups.set(tabId, Date.now());
    setTimeout(() => this.#recentPopups.delete(tabId), POPUP_WINDOW_MS);
  }

  /** Brings back the tab the person looked at last in the window (not the popup, not an agent's). */
  async giveBack(windowId: number, popupTabId: number): Promise<void> {
    const seen = this.#seen.get(windowId) ?? [];
    const previous = [...seen].reverse().find((t) => t !== popupTabId && !this.agentTab(t));
    if (previous !== undefined) await chrome.tabs.update(previous, { active: true }).catch(() => undefined);
  }

  /** The tabs the person looked at, most recent first in each window. */
  recentTabs(): number[] {
    return [...this.#seen.values()].flatMap((seen) => [...seen].reverse());
  }

  /**
   * The tab the person can share with an agent: the one they looked at last (in any window) that is no agent's and
   * whose page `shareable` accepts, or null.
   */
  async shareableTab(shareable: (url: string) => boolean): Promise<{ tabId: number; title: string; url: string } | null> {
    for (const tabId of this.recentTabs()) {
      if (this.agentTab(tabId)) continue;
      const tab = await chrome.tabs.get(tabId).catch(() => undefined);
      const url = tab?.url ?? '';
      if (!tab || !shareable(url)) continue;
      return { tabId, title: tab.title ?? url, url };
    }
    return null;
  }
}
