import { Deadlines } from '../deadlines.js';

/**
 * Sessions whose client connection dropped without saying goodbye, kept for the grace period so that a new
 * connection can take them up (`resume_session`); each closes when its time runs out, unless taken up.
 */
export class KeptSessions {
  // Deadlines unref their timers: a session waiting for its client is no reason to keep the process alive.
  readonly #deadlines = new Deadlines<string>();

  keep(sessionId: string, ms: number, expire: () => Promise<void>): void {
    this.#deadlines.set(sessionId, ms, () => void expire());
  }

  /** A connection took the session up: it is no longer waiting. True if it was. */
  take(sessionId: string): boolean {
    return this.#deadlines.clear(sessionId);
  }

  clear(): void {
    this.#deadlines.clearAll();
  }
}
