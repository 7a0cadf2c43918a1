import { BrowserDisconnectedError, BrowserNotConnectedError, BrowserPausedError, BrowserReconnectedError, InvalidArgumentError } from '../errors';
import type { Deadlines } from '../deadlines';
import { checkDelay, checkExecutor, checkId } from './checks';
import { formatDuration } from './duration';
import type { PendingCommands } from './pending';
import type { RouterStore } from './store';
import type { ConnectResult, Executor, RemoteExecutors, ReportedTab } from './types';

interface Reconnecting {
  readonly deadline: number;
  /** The person paused the connection on purpose (the extension's Disconnect button). */
  readonly paused: boolean;
}

export interface ExecutorRegistryOptions {
  readonly store: RouterStore;
  readonly pending: PendingCommands;
  /** The router's one keyed timer; this registry's keys are "grace:<executorId>". */
  readonly deadlines: Deadlines<string>;
  readonly gracePeriodMs: number;
  readonly remote: RemoteExecutors | undefined;
  /** Ends the sessions of a browser whose grace period ran out (the router closes them as 'browser-gone'). */
  readonly expire: (executorId: string) => Promise<void>;
}

/**
 * The executors connected to this process and those away within their grace period: which one runs a command now,
 * what a command meets when its browser is away, and what happens when a browser comes back (its tabs reconciled) or
 * does not (its sessions end).
 */
export class ExecutorRegistry {
  readonly #options: ExecutorRegistryOptions;
  readonly #connected = new Map<string, Executor>();
  readonly #reconnecting = new Map<string, Reconnecting>();

  constructor(options: ExecutorRegistryOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#connected.size;
  }

  get reconnectingCount(): number {
    return this.#reconnecting.size;
  }

  /** The executor connected here with this id, if any. */
  get(executorId: string): Executor | undefined {
    return this.#connected.get(executorId);
  }

  /** Whether the browser is this process's: connected here, or away within its grace period. */
  holds(executorId: string): boolean {
    return this.#connected.has(executorId) || this.#reconnecting.has(executorId);
  }

  /** The executor that runs a command now: connected here, or (in a cluster) held by another instance. */
  live(executorId: string): Executor {
    if (!this.holds(executorId)) {
      const remote = this.#options.remote?.get(executorId);
      if (remote !== undefined) return remote;
    }
    return this.local(executorId);
  }

  /** The executor connected here, or the error a command meets without it (away: with the time it has left). */
  local(executorId: string): Executor {
    const executor = this.#connected.get(executorId);
    if (executor !== undefined) return executor;
    const waiting = this.#reconnecting.get(executorId);
    if (waiting !== undefined) {
      const timeLeft = formatDuration(waiting.deadline - Date.now());
      throw waiting.paused ? new BrowserPausedError(timeLeft) : new BrowserDisconnectedError('is disconnected', timeLeft);
    }
    throw new BrowserNotConnectedError(executorId);
  }

  /** See SessionRouter.executorConnected. */
  async connected(executor: Executor, reportedTabs: readonly ReportedTab[]): Promise<ConnectResult> {
    checkExecutor(executor);
    if (!Array.isArray(reportedTabs)) throw new InvalidArgumentError('"reportedTabs" must be an array');
    for (const tab of reportedTabs) {
      checkId(tab?.tabId, 'reported tabId');
      checkId(tab.sessionId, 'reported sessionId');
    }
    const { id } = executor;
    const previous = this.#connected.get(id);
    if (previous !== undefined && previous !== executor) {
      // The browser opened a new connection before the old one was seen to close; answers on the old one are lost.
      this.#options.pending.failWhere(
        (pending) => pending.executorId === id,
        (pending) => new BrowserReconnectedError(pending.command.name),
      );
    }
    this.moved(id);
    // Live at once: a command that races the reconciliation below meets at worst a stale tab, which the
    // browser itself then reports as not found.
    this.#connected.set(id, executor);
    const orphanedTabs = await this.#reconcileTabs(id, reportedTabs);
    const { store } = this.#options;
    return { orphanedTabs, sessions: await (store.listVerifiedSessions?.(id) ?? store.listSessions(id)) };
  }

  async #reconcileTabs(executorId: string, reportedTabs: readonly ReportedTab[]): Promise<ReportedTab[]> {
    const { store } = this.#options;
    const sessions = await store.listSessions(executorId);
    const held = new Set(sessions.map((session) => session.sessionId));
    const reportedOwner = new Map(reportedTabs.map((tab) => [tab.tabId, tab.sessionId]));
    for (const { sessionId } of sessions) {
      for (const tabId of await store.listTabs(sessionId)) {
        // Closed while the browser was away (or moved to another of its sessions, which the claims below settle).
        if (reportedOwner.get(tabId) !== sessionId) await store.releaseTab(executorId, tabId);
      }
    }
    const orphaned: ReportedTab[] = [];
    for (const tab of reportedTabs) {
      const owner = held.has(tab.sessionId) ? await store.claimTab(tab.sessionId, tab.tabId) : undefined;
      if (owner !== tab.sessionId) orphaned.push(tab);
    }
    return orphaned;
  }

  /** See SessionRouter.executorDisconnected; `closed`: the router is closed, so nothing waits any more. */
  disconnected(executor: Executor | string, options: { gracePeriodMs?: number; paused?: boolean }, closed: boolean): void {
    const id = typeof executor === 'string' ? executor : executor?.id;
    checkId(id, 'executorId');
    const gracePeriodMs = checkDelay(options.gracePeriodMs, 'gracePeriodMs', this.#options.gracePeriodMs, 0);
    if (closed) return;
    const current = this.#connected.get(id);
    if (current === undefined) return; // never connected, or already disconnected
    if (typeof executor !== 'string' && current !== executor) return; // a replaced connection closing late
    this.#connected.delete(id);

    const paused = options.paused === true;
    const record: Reconnecting = { paused, deadline: Date.now() + gracePeriodMs };
    // A browser that may come back is no reason to keep the process alive at shutdown (Deadlines unrefs its timers).
    this.#options.deadlines.set(`grace:${id}`, gracePeriodMs, () => {
      if (this.#reconnecting.get(id) !== record) return;
      this.#reconnecting.delete(id);
      void this.#options.expire(id);
    });
    this.#reconnecting.set(id, record);

    const timeLeft = formatDuration(gracePeriodMs);
    this.#options.pending.failWhere(
      (pending) => pending.executorId === id,
      () =>
        paused
          ? new BrowserPausedError(timeLeft)
          : gracePeriodMs === 0
            ? new BrowserNotConnectedError(id)
            : new BrowserDisconnectedError('disconnected', timeLeft),
    );
  }

  /** Stops waiting for a browser that is back (here, or on another instance of a cluster). */
  moved(executorId: string): void {
    this.#options.deadlines.clear(`grace:${executorId}`);
    this.#reconnecting.delete(executorId);
  }

  /** Forgets every executor (the router closed; its deadlines are cleared with the rest). */
  clear(): void {
    this.#connected.clear();
    this.#reconnecting.clear();
  }
}
