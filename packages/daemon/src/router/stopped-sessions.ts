import type { PersonStop } from '@browsermcp/protocol';
import { howStopped, SessionStoppedError } from '../errors';

/** How many stopped sessions the router remembers. */
const MAX_STOPPED = 10_000;

/**
 * Sessions the person stopped (the extension's Stop, Cancel on Chrome's bar), and how: their agents' later commands
 * hear why instead of "not open". Bounded: the oldest are forgotten first (they then answer "not open").
 */
export class StoppedSessions {
  /** How each was stopped; undefined where another cluster instance heard it. */
  readonly #stopped = new Map<string, PersonStop | undefined>();

  remember(sessionId: string, via: PersonStop | undefined): void {
    this.#stopped.set(sessionId, via);
    if (this.#stopped.size > MAX_STOPPED) this.#stopped.delete(this.#stopped.keys().next().value!);
  }

  has(sessionId: string): boolean {
    return this.#stopped.has(sessionId);
  }

  via(sessionId: string): PersonStop | undefined {
    return this.#stopped.get(sessionId);
  }

  /** The error a stopped session's command answers with. */
  error(sessionId: string): Error {
    return new SessionStoppedError(howStopped(this.#stopped.get(sessionId)));
  }
}
