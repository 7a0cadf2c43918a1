import type { CommandEnvelope, EventEnvelope, ResponseEnvelope } from '@browsermcp/protocol';
import { CommandCancelledError } from '../errors';
import { checkDelay, checkId } from './checks';
import type { EventRoutes } from './events';
import type { ExecutorRegistry } from './executors';
import type { SessionCloseReason } from './listeners';
import type { PendingCommands } from './pending';
import type { CommandSender } from './send';
import type { SessionRecord } from './store';
import type { TabClaims } from './tab-claims';

export interface PeerApiOptions {
  readonly executors: ExecutorRegistry;
  readonly sender: CommandSender;
  readonly pending: PendingCommands;
  readonly events: EventRoutes;
  /** The tab claims of the browsers held here, which only this instance makes. */
  readonly tabs: TabClaims;
  readonly commandTimeoutMs: number;
  readonly assertOpen: () => void;
  readonly isClosed: () => boolean;
  /** Fails an ended session's queued commands here and tells its listeners (the store already forgot it). */
  readonly forget: (sessionId: string, reason: SessionCloseReason) => void;
  /** Ends the sessions of a browser that did not come back. */
  readonly expire: (executorId: string) => Promise<void>;
}

/**
 * What other instances of a cluster ask of this one's router (`router.peer`): run a command in a browser held here,
 * tell it of sessions opened or closed there, hear of sessions ended and browsers moved. The other instance's router
 * made the checks and keeps each session's order; this side only reaches its own browsers.
 */
export class PeerApi {
  readonly #options: PeerApiOptions;

  constructor(options: PeerApiOptions) {
    this.#options = options;
  }

  /**
   * Runs a command that another instance dispatched (its client's session, this instance's browser) and resolves
   * with the browser's response, whose tab is claimed here for the session (without it when another session owns it).
   * Fails as a dispatch would when the browser is away (BrowserDisconnected with the time left, or not connected).
   */
  async run(executorId: string, command: CommandEnvelope, timeoutMs: number): Promise<ResponseEnvelope> {
    this.#options.assertOpen();
    checkId(executorId, 'executorId');
    const timeout = checkDelay(timeoutMs, 'timeoutMs', this.#options.commandTimeoutMs, 1);
    const response = await this.#options.sender.send(this.#options.executors.local(executorId), command, timeout);
    if (response.tabId === undefined) return response;
    // The browser did the work: a claim that cannot be made (the store away) is logged by own() and answers false, not
    // a failed command (which its client would run again).
    if (await this.#options.tabs.own(command.sessionId, response.tabId)) return response;
    const { tabId: _another, ...rest } = response;
    return rest;
  }

  /** Tells a browser held here that a session whose client another instance serves opened on it. */
  async openSession(session: SessionRecord): Promise<void> {
    this.#options.assertOpen();
    await this.#options.executors.local(session.executorId).openSession?.(session);
  }

  /** Closes a session's tabs in a browser held here, for the instance where the session was closed. */
  async closeSession(executorId: string, sessionId: string): Promise<void> {
    await this.#options.executors.get(executorId)?.closeSession(sessionId);
  }

  /** The instance that sent a command stopped waiting for it: it is failed here and stopped in the browser. */
  cancel(wireId: string, reason: 'cancelled' | 'timeout'): boolean {
    const { pending, executors } = this.#options;
    const entry = pending.get(wireId);
    if (entry === undefined || !pending.fail(wireId, new CommandCancelledError(entry.command.name))) return false;
    executors.get(entry.executorId)?.cancel?.(entry.command, reason);
    return true;
  }

  /**
   * An event another instance forwarded (its browser, this instance's client): delivered as the router's
   * handleEvent delivers, never forwarded again.
   */
  forwardedEvent(executorId: string, event: EventEnvelope): Promise<boolean> {
    return this.#options.events.queue(executorId, event, false);
  }

  /**
   * Another instance ended a session (closed, stopped, its browser gone): its queued commands fail here and its
   * listeners are told, as if it had ended here. The store already forgot it.
   */
  sessionEnded(sessionId: string, reason: SessionCloseReason): void {
    if (this.#options.isClosed()) return;
    checkId(sessionId, 'sessionId');
    this.#options.forget(sessionId, reason);
  }

  /**
   * A disconnected browser reconnected to another instance within its grace period: this instance stops waiting
   * for it without closing its sessions, which are now served there.
   */
  executorMoved(executorId: string): void {
    this.#options.executors.moved(executorId);
  }

  /**
   * Closes the sessions of a browser that no instance holds any more (its instance died and the grace period ran
   * out), as this router does for its own browsers that do not come back.
   */
  expireExecutor(executorId: string): Promise<void> {
    return this.#options.expire(executorId);
  }
}
