/**
 * Sessions whose client connection dropped without saying goodbye, kept for the grace period so that a new
 * connection can take them up (`resume_session`); each closes when its time runs out, unless taken up.
 */
export class KeptSessions {
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();

  keep(sessionId: string, ms: number, expire: () => Promise<void>): void {
    this.take(sessionId);
    const timer = setTimeout(() => {
      if (this.#timers.get(sessionId) !== timer) return;
      this.#timers.delete(sessionId);
      void expire();
    }, ms);
    // A session waiting for its client is no reason to keep the process alive at shutdown.
    timer.unref();
    this.#timers.set(sessionId, timer);
  }

  /** A connection took the session up: it is no longer waiting. True if it was. */
  take(sessionId: string): boolean {
    const timer = this.#timers.get(sessionId);
    if (timer === undefined) return false;
    clearTimeout(timer);
    this.#timers.delete(sessionId);
    return true;
  }

  clear(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
