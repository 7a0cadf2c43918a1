import type { EventEnvelope } from '@browsermcp/protocol';
import type { RouterLogger } from '../router/index.js';

/** How long an event from an instance the directory does not know as the browser's holder waits for it to learn so. */
export const EVENT_HOLDER_WAIT_MS = 2_000;
const POLL_MS = 50;
/** Events waiting for the directory at once; past it an event from an unknown holder is dropped at once. */
const MAX_WAITING = 256;
/** Senders whose dropped events were logged (each pair once, the oldest forgotten past it). */
const MAX_LOGGED = 1_000;

export interface ForwardedEventsOptions {
  /** Whether the directory counts an entry of `instanceId` for the browser (ClusterNode.heldBy). */
  readonly heldBy: (instanceId: string, executorId: string) => boolean;
  /** Hands a believed event to this instance's router (SessionRouter.peer.forwardedEvent). */
  readonly deliver: (executorId: string, event: EventEnvelope) => void;
  readonly logger: RouterLogger;
  /** EVENT_HOLDER_WAIT_MS unless set (tests). */
  readonly waitMs?: number;
}

/**
 * The events other instances send this one for the sessions its clients drive. An event says what happened in a
 * browser (a tab closed, a dialog, the person pressed Stop) and its text reaches the agent, so it is believed only
 * from the instance that holds that browser, which NATS vouches for by the subject it came on: another daemon's
 * credentials cannot put words in a session. A browser that has just moved may speak before this instance's directory
 * has learned where it is: its events wait for that, briefly, in the order each sender sent them.
 */
export class ForwardedEvents {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #logged = new Set<string>();
  #waiting = 0;

  constructor(private readonly o: ForwardedEventsOptions) {}

  accept(sender: string, executorId: string, event: EventEnvelope): Promise<void> {
    const lane = `${sender}\u0000${executorId}`;
    const previous = this.#tails.get(lane);
    // The common case, a known holder with nothing waiting before it, is delivered at once.
    if (previous === undefined && this.o.heldBy(sender, executorId)) {
      this.o.deliver(executorId, event);
      return Promise.resolve();
    }
    if (this.#waiting >= MAX_WAITING) {
      this.#drop(sender, executorId, event, 'too many events wait for the directory');
      return previous ?? Promise.resolve();
    }
    this.#waiting++;
    const done = (previous ?? Promise.resolve()).then(async () => {
      try {
        if (await this.#untilHeld(sender, executorId)) this.o.deliver(executorId, event);
        else this.#drop(sender, executorId, event, 'the sender does not hold the browser');
      } finally {
        this.#waiting--;
      }
    });
    this.#tails.set(lane, done);
    void done.then(() => {
      if (this.#tails.get(lane) === done) this.#tails.delete(lane);
    });
    return done;
  }

  async #untilHeld(sender: string, executorId: string): Promise<boolean> {
    for (let waited = 0; ; waited += POLL_MS) {
      if (this.o.heldBy(sender, executorId)) return true;
      if (waited >= (this.o.waitMs ?? EVENT_HOLDER_WAIT_MS)) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  #drop(sender: string, executorId: string, event: EventEnvelope, why: string): void {
    const key = `${sender}\u0000${executorId}`;
    if (this.#logged.has(key)) return;
    if (this.#logged.size >= MAX_LOGGED) this.#logged.delete(this.#logged.values().next().value!);
    this.#logged.add(key);
    this.o.logger.warn(
      { sender, executorId, sessionId: event.sessionId, name: event.name, why },
      "dropped a browser event from an instance the directory does not name as the browser's holder (SECURITY.md)",
    );
  }
}
