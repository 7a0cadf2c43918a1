/** Longest an answer waits for the blocked page after its navigation was refused (the session caps waits at 2 s too). */
const BLOCKED_PAGE_WAIT_MS = 2000;

/**
 * Agents' tabs whose navigation the session's guard refused for a site the person put off limits: the answer to the
 * call that led there waits until the tab shows the blocked page, so it describes the page the person sees, not
 * Chrome's error page before it.
 */
export class BlockedWaits {
  readonly #waiting = new Map<number, () => void>();

  /** Resolves once `shown(tabId)` is called, or after BLOCKED_PAGE_WAIT_MS; a newer wait for the tab ends an older one. */
  wait(tabId: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.shown(tabId);
      const timer = setTimeout(() => this.shown(tabId), BLOCKED_PAGE_WAIT_MS);
      this.#waiting.set(tabId, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The tab shows the blocked page (or gave up on it): its wait ends. */
  shown(tabId: number): void {
    const done = this.#waiting.get(tabId);
    this.#waiting.delete(tabId);
    done?.();
  }
}
