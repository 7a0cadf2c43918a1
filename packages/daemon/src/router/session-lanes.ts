import { SessionListeners } from './listeners';
import { SerialQueue } from './serial-queue';

/** What the router keeps in this process for one session: its command queue and its listeners. */
export class SessionLane {
  readonly queue: SerialQueue;
  readonly listeners = new SessionListeners();
  /** Set when the session closes; a command that already left the queue checks it before it is sent. */
  closed = false;

  constructor(onIdle: () => void) {
    this.queue = new SerialQueue(onIdle);
  }
}

/**
 * Lanes by session id. A lane is made on first use and dropped when it has no queued command and no listener, so
 * commands for sessions that never existed leave nothing behind.
 */
export class SessionLanes {
  readonly #lanes = new Map<string, SessionLane>();

  get(sessionId: string): SessionLane {
    const existing = this.#lanes.get(sessionId);
    if (existing !== undefined) return existing;
    const lane: SessionLane = new SessionLane(() => this.release(sessionId, lane));
    this.#lanes.set(sessionId, lane);
    return lane;
  }

  peek(sessionId: string): SessionLane | undefined {
    return this.#lanes.get(sessionId);
  }

  /** Drops `lane` if it is still the session's lane and nothing uses it. */
  release(sessionId: string, lane: SessionLane): void {
    if (this.#lanes.get(sessionId) === lane && lane.queue.size === 0 && lane.listeners.empty) {
      this.#lanes.delete(sessionId);
    }
  }

  /**
   * Ends a session's lane: it is marked closed and its commands that have not started fail with `error`. Returns
   * the lane so the caller can tell its listeners.
   */
  close(sessionId: string, error: Error): SessionLane | undefined {
    const lane = this.#lanes.get(sessionId);
    if (lane === undefined) return undefined;
    this.#lanes.delete(sessionId);
    lane.closed = true;
    lane.queue.rejectWaiting(error);
    return lane;
  }

  closeAll(error: () => Error): void {
    for (const [sessionId, lane] of [...this.#lanes]) {
      this.close(sessionId, error());
      lane.listeners.clear();
    }
  }
}
