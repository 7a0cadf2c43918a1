import { ExtensionEvents, parseWaitingForPerson, type EventEnvelope } from '@browsermcp/protocol';
import type { SessionLanes } from './session-lanes';
import type { RouterStore } from './store';
import type { RemoteExecutors, RouterLogger } from './types';

/** The longest a browser may hold a command for the person (an approval waits 2 minutes, a hand-off 15). */
export const MAX_HOLD_MS = 20 * 60_000;

export interface EventRoutesOptions {
  readonly store: RouterStore;
  readonly lanes: SessionLanes;
  readonly remote: RemoteExecutors | undefined;
  readonly logger: RouterLogger;
  /** The session's commands in flight wait for the person up to `ms` (SessionRouter.holdCommands). */
  readonly hold: (executorId: string, sessionId: string, ms: number) => void;
  readonly isClosed: () => boolean;
  readonly listenerFailed: (sessionId: string, error: unknown) => void;
}

/**
 * Browser events to the session they concern: only to the session that holds the executor and owns the tab, in the
 * order each executor sent them; to another cluster instance when that one serves the session's client.
 */
export class EventRoutes {
  readonly #options: EventRoutesOptions;
  /** Per executor, the tail of its events still being routed, so they reach listeners in the order they came. */
  readonly #tails = new Map<string, Promise<boolean>>();

  constructor(options: EventRoutesOptions) {
    this.#options = options;
  }

  /** Routes an event after the executor's earlier ones; `forward`: hand it on when no listener here has its session. */
  queue(executorId: string, event: EventEnvelope, forward: boolean): Promise<boolean> {
    if (this.#options.isClosed()) return Promise.resolve(false);
    const previous = this.#tails.get(executorId) ?? Promise.resolve(false);
    const delivered = previous
      .then(() => this.#route(executorId, event, forward))
      .catch((error: unknown) => {
        this.#options.logger.warn({ executorId, name: event.name, error }, 'could not route an event');
        return false;
      });
    this.#tails.set(executorId, delivered);
    void delivered.then(() => {
      if (this.#tails.get(executorId) === delivered) this.#tails.delete(executorId);
    });
    return delivered;
  }

  clear(): void {
    this.#tails.clear();
  }

  async #route(executorId: string, event: EventEnvelope, forward: boolean): Promise<boolean> {
    const { store, lanes, remote } = this.#options;
    const session = await store.getSession(event.sessionId);
    if (session === undefined || session.executorId !== executorId) return false;
    // A forwarded event was checked by the instance that holds the browser, the only one that knows its tabs.
    if (event.tabId !== undefined && forward) {
      const owner = await store.getTabOwner(executorId, event.tabId);
      // An unowned tab may be one the executor just opened for this session and has not reported yet.
      if (owner !== undefined && owner !== event.sessionId) return false;
    }
    if (this.#options.isClosed()) return false;
    if (event.name === ExtensionEvents.waitingForPerson || event.name === ExtensionEvents.waitingForBrowser) {
      // The browser holds the session's command for the person (or for its own start), within a bound: its timeout
      // waits with it.
      const waiting = parseWaitingForPerson(event.payload);
      if (waiting.ok) this.#options.hold(executorId, event.sessionId, Math.min(waiting.value.ms, MAX_HOLD_MS));
    }
    const lane = lanes.peek(event.sessionId);
    if (lane === undefined) {
      if (forward && session.servedBy !== undefined && session.servedBy !== remote?.instanceId) remote?.forwardEvent(executorId, event, session.servedBy);
      return false;
    }
    return lane.listeners.emitEvent(event, (error) => this.#options.listenerFailed(event.sessionId, error)) > 0;
  }
}
