import type { EventEnvelope } from '@browsermcp/protocol';
import type { RouterLogger } from '../router/index.js';

/** How long an event from an instance the directory does not know as the browser's holder waits for it to learn so. */
export const EVENT_HOLDER_WAIT_MS = 2_000;
const POLL_MS = 50;
/**
 * Events of one sender waiting at once; past it that sender's next event is dropped at once. Per sender (an instance,
 * as NATS vouches), so that one daemon's credentials flooding the wait hold up no other instance's events.
 */
const MAX_WAITING_PER_SENDER = 64;
/** A sender's dropped events are logged at most once in this long (with how many were dropped since). */
const LOG_EVERY_MS = 60_000;

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
  /** Events waiting per sender. */
  readonly #waiting = new Map<string, number>();
  /** Per sender: when its drops were last logged, and how many were dropped since. */
  readonly #drops = new Map<string, { loggedAt: number; since: number }>();

  constructor(private readonly o: ForwardedEventsOptions) {}

  accept(sender: string, executorId: string, event: EventEnvelope): Promise<void> {
    const lane = `${sender}\u0000${executorId}`;
    const previous = this.#tails.get(lane);
    // The common case, a known holder with nothing waiting before it, is delivered at once.
    if (previous === undefined && this.o.heldBy(sender, executorId)) {
      this.o.deliver(executorId, event);
      return Promise.resolve();
    }
    const waiting = this.#waiting.get(sender) ?? 0;
    if (waiting >= MAX_WAITING_PER_SENDER) {
      this.#drop(sender, executorId, event, 'too many of its events wait for the directory');
      return previous ?? Promise.resolve();
    }
    this.#waiting.set(sender, waiting + 1);
    const done = (previous ?? Promise.resolve()).then(async () => {
      try {
        if (await this.#untilHeld(sender, executorId)) this.o.deliver(executorId, event);
        else this.#drop(sender, executorId, event, 'the sender does not hold the browser');
      } finally {
        const left = (this.#waiting.get(sender) ?? 1) - 1;
        if (left > 0) this.#waiting.set(sender, left);
        else this.#waiting.delete(sender);
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
    const now = Date.now();
    const drops = this.#drops.get(sender);
    if (drops !== undefined && now - drops.loggedAt < LOG_EVERY_MS) {
      drops.since++;
      return;
    }
    this.#drops.set(sender, { loggedAt: now, since: 0 });
    this.o.logger.warn(
      { sender, executorId, sessionId: event.sessionId, name: event.name, why, droppedBefore: drops?.since ?? 0 },
      "dropped a browser event from an instance the directory does not name as the browser's holder (SECURITY.md)",
    );
  }
}
