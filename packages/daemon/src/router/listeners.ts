import type { EventEnvelope } from '@browsermcp/protocol';

export type SessionEventListener = (event: EventEnvelope) => void;
/**
 * 'closed': closeSession was called. 'browser-gone': its browser did not reconnect within the grace period.
 * 'stopped': the person stopped the agent in their browser.
 */
export type SessionCloseReason = 'closed' | 'browser-gone' | 'stopped';
export type SessionClosedListener = (reason: SessionCloseReason) => void;
export type Unsubscribe = () => void;

/** The listeners of one session. A throwing listener is reported to `onError` and does not stop the others. */
export class SessionListeners {
  // Each subscription gets its own wrapper, so subscribing one function twice needs two unsubscribes.
  readonly #events = new Set<SessionEventListener>();
  readonly #closed = new Set<SessionClosedListener>();

  get empty(): boolean {
    return this.#events.size === 0 && this.#closed.size === 0;
  }

  addEventListener(listener: SessionEventListener): Unsubscribe {
    const entry: SessionEventListener = (event) => listener(event);
    this.#events.add(entry);
    return () => this.#events.delete(entry);
  }

  addClosedListener(listener: SessionClosedListener): Unsubscribe {
    const entry: SessionClosedListener = (reason) => listener(reason);
    this.#closed.add(entry);
    return () => this.#closed.delete(entry);
  }

  /** Returns how many listeners received the event. */
  emitEvent(event: EventEnvelope, onError: (error: unknown) => void): number {
    return callEach(this.#events, event, onError);
  }

  /** Tells the closed listeners once, then forgets every listener: the session is over. */
  emitClosed(reason: SessionCloseReason, onError: (error: unknown) => void): void {
    const closed = [...this.#closed];
    this.clear();
    callEach(closed, reason, onError);
  }

  clear(): void {
    this.#events.clear();
    this.#closed.clear();
  }
}

function callEach<T>(listeners: Iterable<(value: T) => void>, value: T, onError: (error: unknown) => void): number {
  let count = 0;
  // A copy: a listener may unsubscribe (itself or another) while we iterate.
  for (const listener of [...listeners]) {
    count += 1;
    try {
      listener(value);
    } catch (error) {
      onError(error);
    }
  }
  return count;
}
