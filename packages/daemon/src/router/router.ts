import {
  createCommand,
  ExtensionEvents,
  generateWireId,
  parseWaitingForPerson,
  type CommandEnvelope,
  type ErrorObject,
  type EventEnvelope,
  type ResponseEnvelope,
} from '@browsermcp/protocol';
import {
  BrowserDisconnectedError,
  BrowserPausedError,
  BrowserNotConnectedError,
  BrowserReconnectedError,
  CommandCancelledError,
  CommandFailedError,
  InvalidArgumentError,
  RouterClosedError,
  SessionClosedError,
  SessionStoppedError,
  SessionExistsError,
  TooManySessionsError,
  SessionInUseError,
  SessionNotFoundError,
  TabNotFoundError,
  TabOwnedError,
  executorError,
  isDaemonError,
} from '../errors';
import { Deadlines } from '../deadlines';
import { formatDuration } from './duration';
import type { SessionCloseReason, SessionClosedListener, SessionEventListener, Unsubscribe } from './listeners';
import { InMemoryRouterStore } from './memory-store';
import { PendingCommands } from './pending';
import { SessionLanes, type SessionLane } from './session-lanes';
import type { RouterStore, SessionRecord, StateHolder, StateRecord } from './store';
import type {
  ConnectResult,
  DispatchRequest,
  Executor,
  OpenSessionOptions,
  RemoteExecutors,
  ReportedTab,
  RouterLogger,
  RouterOptions,
  RouterStats,
} from './types';

/** Long enough for a slow navigation (60 s by default) plus the snapshot after it. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 90_000;
export const DEFAULT_GRACE_MS = 5 * 60_000;
/** Most sessions one user may have open on a daemon (or a cluster: the store is shared). */
export const DEFAULT_MAX_SESSIONS_PER_USER = 50;
/** setTimeout's limit: a longer delay fires at once. */
const MAX_DELAY_MS = 2_147_483_647;

const silentLogger: RouterLogger = { warn() {} };

/** How many stopped sessions the router remembers. */
const MAX_STOPPED = 10_000;
/** How much longer than the browser waits for the person a held command waits, so the browser's answer comes first. */
const HOLD_MARGIN_MS = 5_000;
/** The longest a browser may hold a command for the person (an approval waits 2 minutes, a hand-off 15). */
export const MAX_HOLD_MS = 20 * 60_000;

interface Reconnecting {
  readonly deadline: number;
  /** The person paused the connection on purpose (the extension's Disconnect button). */
  readonly paused: boolean;
}

/**
 * Routes each session's commands to the executor that holds the session: one command at a time per session,
 * sessions in parallel, every command with a wireId and a timeout. It keeps tab ownership so a session only reaches
 * its own tabs, routes browser events to the session that owns the tab, and keeps an executor's sessions for a
 * grace period after it disconnects. Shared state lives in a RouterStore; what is bound to this process (queues,
 * commands in flight, listeners, connected executors, timers) lives here.
 */
export class SessionRouter {
  readonly #store: RouterStore;
  readonly #commandTimeoutMs: number;
  readonly #graceMs: number;
  readonly #maxSessionsPerUser: number;
  readonly #defaultExecutorId: string | undefined;
  /** Sessions the person stopped, so their agents hear why (bounded by MAX_STOPPED). */
  readonly #stopped = new Set<string>();
  readonly #logger: RouterLogger;
  readonly #remote: RemoteExecutors | undefined;

  readonly #executors = new Map<string, Executor>();
  readonly #reconnecting = new Map<string, Reconnecting>();
  readonly #pending = new PendingCommands();
  readonly #lanes = new SessionLanes();
  /** Grace periods of disconnected browsers ("grace:<id>") and idle kept states ("state:<owner>"), each a deadline. */
  readonly #deadlines = new Deadlines<string>();
  /** Per executor, the tail of its events still being routed, so they reach listeners in the order they came. */
  readonly #eventTails = new Map<string, Promise<boolean>>();
  #closed = false;

  constructor(options: RouterOptions = {}) {
    // Options are checked once, here, so a bad one fails at startup rather than on some later command.
    this.#commandTimeoutMs = checkDelay(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_COMMAND_TIMEOUT_MS, 1);
    this.#graceMs = checkDelay(options.graceMs, 'graceMs', DEFAULT_GRACE_MS, 0);
    this.#maxSessionsPerUser = options.maxSessionsPerUser ?? DEFAULT_MAX_SESSIONS_PER_USER;
    if (!Number.isInteger(this.#maxSessionsPerUser) || this.#maxSessionsPerUser < 1) {
      throw new InvalidArgumentError('"maxSessionsPerUser" must be a whole number of at least 1');
    }
    if (options.defaultExecutorId !== undefined) checkId(options.defaultExecutorId, 'defaultExecutorId');
    this.#defaultExecutorId = options.defaultExecutorId;
    if (options.store !== undefined && (typeof options.store !== 'object' || options.store === null)) {
      throw new InvalidArgumentError('"store" must be a RouterStore');
    }
    this.#store = options.store ?? new InMemoryRouterStore();
    if (options.logger !== undefined && typeof options.logger?.warn !== 'function') {
      throw new InvalidArgumentError('"logger" must have a warn method');
    }
    this.#logger = options.logger ?? silentLogger;
    this.#remote = options.remote;
  }

  /** How long a disconnected executor's sessions wait for it: the one grace period of the daemon (the app's too). */
  get graceMs(): number {
    return this.#graceMs;
  }

  // ── sessions ──────────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Opens a session on a connected executor. Fails with SessionExists if the id is taken, and with a
   * BrowserDisconnected code if the executor is not connected. Await it before dispatching to the session.
   */
  async openSession(sessionId: string, options: OpenSessionOptions = {}): Promise<SessionRecord> {
    this.#assertOpen();
    checkId(sessionId, 'sessionId');
    const { clientName, agent } = options;
    if (clientName !== undefined && typeof clientName !== 'string') {
      throw new InvalidArgumentError('"clientName" must be a string');
    }
    if (agent !== undefined && (typeof agent !== 'string' || agent.length > 200)) {
      throw new InvalidArgumentError('"agent" must be a string of at most 200 characters');
    }
    const executorId = options.executorId ?? this.#defaultExecutorId;
    if (executorId === undefined) {
      throw new InvalidArgumentError('openSession needs an executorId, or a router with a defaultExecutorId');
    }
    checkId(executorId, 'executorId');
    const executor = this.#liveExecutor(executorId);
    const { userId, servedBy } = options;
    if (userId !== undefined) checkId(userId, 'userId');
    if (servedBy !== undefined) checkId(servedBy, 'servedBy');
    const session: SessionRecord = {
      sessionId,
      executorId,
      ...(clientName !== undefined ? { clientName } : {}),
      ...(agent !== undefined ? { agent } : {}),
      ...(userId !== undefined ? { userId } : {}),
      ...(servedBy !== undefined ? { servedBy } : {}),
      ...(options.settings !== undefined ? { settings: options.settings } : {}),
    };
    // One user cannot take the daemon's sessions (and browser contexts) for everyone else.
    if (userId !== undefined) {
      const open = (await this.#store.listSessions()).filter((s) => s.userId === userId).length;
      if (open >= this.#maxSessionsPerUser) throw new TooManySessionsError(userId, this.#maxSessionsPerUser);
    }
    if (!(await this.#store.createSession(session))) throw new SessionExistsError(sessionId);
    if (executor.openSession !== undefined) {
      try {
        await executor.openSession(session);
      } catch (error) {
        await this.#endSession(sessionId, 'closed');
        throw error;
      }
    }
    return session;
  }

  /**
   * Takes up an open session whose client connection dropped (here, or on another instance of a cluster): it is
   * served from `servedBy` from now on. Another user's session answers SessionNotFound, as a missing one does; one
   * that a live client on another instance drives answers SessionInUse (unless `shared`: a kept browser state, which
   * its owner's connections may drive together).
   */
  async resumeSession(
    sessionId: string,
    options: { userId?: string | undefined; servedBy?: string | undefined; shared?: boolean | undefined } = {},
  ): Promise<SessionRecord> {
    this.#assertOpen();
    checkId(sessionId, 'sessionId');
    const session = await this.#store.getSession(sessionId);
    if (session === undefined && this.#stopped.has(sessionId)) throw new SessionStoppedError();
    if (session === undefined || session.userId !== options.userId) throw new SessionNotFoundError(sessionId);
    const from = session.servedBy;
    if (options.servedBy !== undefined && from !== undefined && from !== options.servedBy && options.shared !== true && (await this.#remote?.drives(from, sessionId))) {
      throw new SessionInUseError(sessionId, from);
    }
    if (options.servedBy !== undefined && !(await this.#store.setServedBy(sessionId, options.servedBy))) {
      throw new SessionNotFoundError(sessionId);
    }
    return options.servedBy !== undefined ? { ...session, servedBy: options.servedBy } : session;
  }

  /**
   * Closes a session: commands that have not run fail with SessionClosed, its tabs are released, its
   * session-closed listeners are told, and its executor closes its tabs. False if no such session was open.
   * If the executor is away, its tabs stay open until it reconnects, which reports them as orphaned. If the
   * executor fails to close the tabs, its error is rethrown; the router has forgotten the session either way.
   */
  async closeSession(sessionId: string): Promise<boolean> {
    this.#assertOpen();
    checkId(sessionId, 'sessionId');
    const session = await this.#endSession(sessionId, 'closed');
    if (session === undefined) return false;
    await (this.#executors.get(session.executorId) ?? this.#remote?.get(session.executorId))?.closeSession(sessionId);
    return true;
  }

  /**
   * The browser reports that the person stopped a session (the extension's Stop button): it ends as closeSession
   * ends it ('stopped' to its listeners), its browser already closed its tabs, and its later commands answer
   * SessionStopped, so its agent hears why instead of "not open". False if the executor holds no such session.
   */
  async stopSession(executorId: string, sessionId: string): Promise<boolean> {
    this.#assertOpen();
    checkId(executorId, 'executorId');
    checkId(sessionId, 'sessionId');
    const session = await this.#store.getSession(sessionId);
    if (session === undefined || session.executorId !== executorId) return false;
    this.#rememberStopped(sessionId);
    await this.#endSession(sessionId, 'stopped');
    return true;
  }

  /**
   * The browser reports that a session's commands in flight wait for the person for up to `ms` (an approval in the
   * popup, a hand-off): their timeouts restart at a little more than that from now, so the person's answer (or the
   * browser's own "no answer"), not the command timeout, decides. Returns how many.
   */
  holdCommands(executorId: string, sessionId: string, ms: number): number {
    checkId(executorId, 'executorId');
    checkId(sessionId, 'sessionId');
    const wait = checkDelay(ms, 'ms', 0, 1) + HOLD_MARGIN_MS;
    return this.#pending.extendWhere((p) => p.executorId === executorId && p.command.sessionId === sessionId, wait);
  }

  async hasSession(sessionId: string): Promise<boolean> {
    return (await this.getSession(sessionId)) !== undefined;
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    checkId(sessionId, 'sessionId');
    return this.#store.getSession(sessionId);
  }

  // ── commands ──────────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Runs one command in the session's browser and resolves with the response's data. Commands of one session run
   * one at a time in call order; a command is checked (session, tab ownership, executor connected) when its turn
   * comes, so it sees the tabs that earlier commands opened or closed. Rejects with a daemon error whose rpcCode
   * says why: SessionNotFound, TabNotFound, TabOwnedByOtherSession, BrowserDisconnected, Timeout, CommandFailed,
   * or the executor's own code when it answered with an error.
   */
  dispatch(sessionId: string, request: DispatchRequest): Promise<unknown> {
    let timeoutMs: number;
    try {
      this.#assertOpen();
      checkId(sessionId, 'sessionId');
      if (typeof request !== 'object' || request === null) {
        throw new InvalidArgumentError('a command must be an object');
      }
      checkId(request.name, 'command name');
      if (request.tabId !== undefined) checkId(request.tabId, 'tabId');
      if (request.originId !== undefined) checkId(request.originId, 'originId');
      if (request.userId !== undefined) checkId(request.userId, 'userId');
      if (request.signal !== undefined && !(request.signal instanceof AbortSignal)) {
        throw new InvalidArgumentError('"signal" must be an AbortSignal');
      }
      if (request.signal?.aborted) throw new CommandCancelledError(request.name);
      timeoutMs = checkDelay(request.timeoutMs, 'timeoutMs', this.#commandTimeoutMs, 1);
    } catch (error) {
      return Promise.reject(error);
    }
    // A copy, so a caller that reuses its request object cannot change a command that is still queued.
    const queued: DispatchRequest = { ...request };
    const { signal } = queued;
    // Queued synchronously, so the order of dispatch calls is the order of execution.
    const lane = this.#lanes.get(sessionId);
    return lane.queue.push(
      () => this.#run(lane, sessionId, queued, timeoutMs),
      signal ? { signal, error: () => new CommandCancelledError(queued.name) } : undefined,
    );
  }

  async #run(lane: SessionLane, sessionId: string, request: DispatchRequest, timeoutMs: number): Promise<unknown> {
    const session = await this.#store.getSession(sessionId);
    if (session === undefined && this.#stopped.has(sessionId)) throw new SessionStoppedError();
    if (session === undefined || (request.userId !== undefined && session.userId !== request.userId)) {
      throw new SessionNotFoundError(sessionId);
    }
    const { executorId } = session;
    // Only a tab the caller named goes out with the command: without one, the executor runs it in the session's
    // current tab, which the browser knows better than this store (the person may have closed or moved it).
    const { tabId } = request;
    if (tabId !== undefined) {
      const owner = await this.#store.getTabOwner(executorId, tabId);
      if (owner === undefined) throw new TabNotFoundError(tabId);
      if (owner !== sessionId) throw new TabOwnedError(tabId);
    }

    // No await from here to send: a close or a disconnect cannot slip in between these checks and the send.
    this.#assertOpen();
    if (lane.closed) throw new SessionClosedError(sessionId);
    if (request.signal?.aborted) throw new CommandCancelledError(request.name);
    const executor = this.#liveExecutor(executorId);
    const command = createCommand(
      { sessionId, name: request.name, payload: request.payload, tabId, originId: request.originId },
      generateWireId(),
    );
    const response = await this.#send(executor, command, timeoutMs, request.signal);

    if (response.error !== undefined) throw executorError(response.error);
    // The executor names the session's current tab after the command (one it opened, selected or moved to). Most
    // commands stay in the tab the session already had: no store writes then (each is a round trip in a cluster).
    if (response.tabId !== undefined && response.tabId !== session.currentTabId) await this.#adoptTab(sessionId, response.tabId);
    return response.data;
  }

  #send(executor: Executor, command: CommandEnvelope, timeoutMs: number, signal?: AbortSignal): Promise<ResponseEnvelope> {
    // Registered before send: an in-process executor may answer from inside send.
    const response = this.#pending.wait(command, executor.id, timeoutMs);
    this.#stopWhenAbandoned(executor, command, response, signal);
    const fail = (error: unknown): void => {
      // An executor that knows what went wrong (e.g. its socket just closed) says so with a daemon error of its own.
      if (isDaemonError(error)) return void this.#pending.fail(command.wireId, error);
      const reason = error instanceof Error ? error.message : String(error);
      this.#pending.fail(command.wireId, new CommandFailedError(command.name, reason, { cause: error }));
    };
    try {
      Promise.resolve(executor.send(command, timeoutMs)).catch(fail);
    } catch (error) {
      fail(error);
    }
    return response;
  }

  /**
   * A cancelled command is answered now (Cancelled) and the session's queue goes on; a cancelled or timed-out
   * command is stopped in the browser too, so that its work does not go on under the session's next command.
   */
  #stopWhenAbandoned(executor: Executor, command: CommandEnvelope, response: Promise<ResponseEnvelope>, signal: AbortSignal | undefined): void {
    const stop = (reason: 'cancelled' | 'timeout') => {
      try {
        executor.cancel?.(command, reason);
      } catch (error) {
        this.#logger.warn({ executorId: executor.id, wireId: command.wireId, error }, 'could not tell the browser to stop a command');
      }
    };
    const onAbort = () => {
      if (this.#pending.fail(command.wireId, new CommandCancelledError(command.name))) stop('cancelled');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    response
      .catch((error: unknown) => {
        if (isDaemonError(error) && error.code === 'BMCP_ERR_TIMEOUT') stop('timeout');
      })
      .finally(() => signal?.removeEventListener('abort', onAbort));
  }

  /** Makes the tab an executor answered with the session's own and its current tab, unless another session owns it. */
  async #adoptTab(sessionId: string, tabId: string): Promise<void> {
    // The browser already did the work: a bookkeeping failure here is logged, not turned into a failed command.
    try {
      const owner = await this.#store.claimTab(sessionId, tabId);
      if (owner === undefined) return; // the session closed meanwhile
      if (owner !== sessionId) {
        this.#logger.warn({ sessionId, tabId }, "an executor answered with another session's tab; ownership unchanged");
        return;
      }
      await this.#store.setCurrentTab(sessionId, tabId);
    } catch (error) {
      this.#logger.warn({ sessionId, tabId, error }, 'could not record the tab a command ran in');
    }
  }

  // ── what executors report ─────────────────────────────────────────────────────────────────────────────────────

  /** Settles the command the response answers. False (and logged) for a late, unknown or foreign response. */
  handleResponse(executorId: string, response: ResponseEnvelope): boolean {
    const result = this.#pending.settle(executorId, response);
    if (result === 'settled') return true;
    this.#logger.warn(
      { executorId, wireId: response.wireId, name: response.name, reason: result },
      'dropped a response that no pending command of this executor waits for (it may have timed out)',
    );
    return false;
  }

  /**
   * Fails one pending command at once, for a transport that received an unreadable response but could read its
   * wireId (see parseEnvelope). False if the executor has no such command pending.
   */
  failCommand(executorId: string, wireId: string, error: ErrorObject): boolean {
    if (this.#pending.get(wireId)?.executorId !== executorId) return false;
    return this.#pending.fail(wireId, executorError(error));
  }

  /**
   * Delivers a browser event to the listeners of the session it names, if that session is held by this executor
   * and, when the event names a tab, the tab is not another session's. Events of one executor are delivered in
   * the order they came. Resolves with whether any listener received it.
   */
  handleEvent(executorId: string, event: EventEnvelope): Promise<boolean> {
    return this.#queueEvent(executorId, event, true);
  }

  /**
   * An event another instance of the cluster forwarded (its browser, this instance's client): delivered as
   * handleEvent delivers, never forwarded again.
   */
  handleForwardedEvent(executorId: string, event: EventEnvelope): Promise<boolean> {
    return this.#queueEvent(executorId, event, false);
  }

  #queueEvent(executorId: string, event: EventEnvelope, forward: boolean): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    const previous = this.#eventTails.get(executorId) ?? Promise.resolve(false);
    const delivered = previous
      .then(() => this.#routeEvent(executorId, event, forward))
      .catch((error: unknown) => {
        this.#logger.warn({ executorId, name: event.name, error }, 'could not route an event');
        return false;
      });
    this.#eventTails.set(executorId, delivered);
    void delivered.then(() => {
      if (this.#eventTails.get(executorId) === delivered) this.#eventTails.delete(executorId);
    });
    return delivered;
  }

  async #routeEvent(executorId: string, event: EventEnvelope, forward: boolean): Promise<boolean> {
    const session = await this.#store.getSession(event.sessionId);
    if (session === undefined || session.executorId !== executorId) return false;
    if (event.tabId !== undefined) {
      const owner = await this.#store.getTabOwner(executorId, event.tabId);
      // An unowned tab may be one the executor just opened for this session and has not reported yet.
      if (owner !== undefined && owner !== event.sessionId) return false;
    }
    if (this.#closed) return false;
    if (event.name === ExtensionEvents.waitingForPerson || event.name === ExtensionEvents.waitingForBrowser) {
      // The browser holds the session's command for the person (or for its own start), within a bound: its timeout
      // waits with it.
      const waiting = parseWaitingForPerson(event.payload);
      if (waiting.ok) this.holdCommands(executorId, event.sessionId, Math.min(waiting.value.ms, MAX_HOLD_MS));
    }
    const lane = this.#lanes.peek(event.sessionId);
    if (lane === undefined) {
      if (forward) this.#remote?.forwardEvent(executorId, event);
      return false;
    }
    return lane.listeners.emitEvent(event, (error) => this.#listenerFailed(event.sessionId, error)) > 0;
  }

  /** An executor reports that a tab of its browser belongs to a session; it becomes the session's current tab. */
  async claimTab(executorId: string, sessionId: string, tabId: string): Promise<void> {
    this.#assertOpen();
    checkId(executorId, 'executorId');
    checkId(sessionId, 'sessionId');
    checkId(tabId, 'tabId');
    const session = await this.#store.getSession(sessionId);
    if (session === undefined || session.executorId !== executorId) throw new SessionNotFoundError(sessionId);
    const owner = await this.#store.claimTab(sessionId, tabId);
    if (owner === undefined) throw new SessionNotFoundError(sessionId);
    if (owner !== sessionId) throw new TabOwnedError(tabId);
    await this.#store.setCurrentTab(sessionId, tabId);
  }

  /**
   * An executor reports that a tab closed. If it was a session's current tab, the session has none until its next
   * command, which the executor then runs in a tab of its choosing.
   */
  async releaseTab(executorId: string, tabId: string): Promise<boolean> {
    this.#assertOpen();
    checkId(executorId, 'executorId');
    checkId(tabId, 'tabId');
    return (await this.#store.releaseTab(executorId, tabId)) !== undefined;
  }

  // ── executors coming and going ────────────────────────────────────────────────────────────────────────────────

  /**
   * Registers a connected executor, or one that is back within its grace period: its sessions work again. The
   * tabs it reports are the truth: tabs of its sessions it no longer reports are released, reported ones are
   * owned again, and reported tabs that no session of its holds any more come back as `orphanedTabs`.
   */
  async executorConnected(executor: Executor, reportedTabs: readonly ReportedTab[] = []): Promise<ConnectResult> {
    this.#assertOpen();
    checkExecutor(executor);
    if (!Array.isArray(reportedTabs)) throw new InvalidArgumentError('"reportedTabs" must be an array');
    for (const tab of reportedTabs) {
      checkId(tab?.tabId, 'reported tabId');
      checkId(tab.sessionId, 'reported sessionId');
    }
    const { id } = executor;
    const previous = this.#executors.get(id);
    if (previous !== undefined && previous !== executor) {
      // The browser opened a new connection before the old one was seen to close; answers on the old one are lost.
      this.#pending.failWhere(
        (pending) => pending.executorId === id,
        (pending) => new BrowserReconnectedError(pending.command.name),
      );
    }
    this.#deadlines.clear(`grace:${id}`);
    this.#reconnecting.delete(id);
    // Live at once: a command that races the reconciliation below meets at worst a stale tab, which the
    // browser itself then reports as not found.
    this.#executors.set(id, executor);
    const orphanedTabs = await this.#reconcileTabs(id, reportedTabs);
    return { orphanedTabs, sessions: await this.#store.listSessions(id) };
  }

  async #reconcileTabs(executorId: string, reportedTabs: readonly ReportedTab[]): Promise<ReportedTab[]> {
    const sessions = await this.#store.listSessions(executorId);
    const held = new Set(sessions.map((session) => session.sessionId));
    const reportedOwner = new Map(reportedTabs.map((tab) => [tab.tabId, tab.sessionId]));
    for (const { sessionId } of sessions) {
      for (const tabId of await this.#store.listTabs(sessionId)) {
        // Closed while the browser was away (or moved to another of its sessions, which the claims below settle).
        if (reportedOwner.get(tabId) !== sessionId) await this.#store.releaseTab(executorId, tabId);
      }
    }
    const orphaned: ReportedTab[] = [];
    for (const tab of reportedTabs) {
      const owner = held.has(tab.sessionId) ? await this.#store.claimTab(tab.sessionId, tab.tabId) : undefined;
      if (owner !== tab.sessionId) orphaned.push(tab);
    }
    return orphaned;
  }

  /**
   * An executor's connection is gone. Its commands in flight fail now with BrowserDisconnected, and so do its
   * sessions' later commands, until it reconnects (executorConnected with the same id) or `graceMs` passes; then
   * its sessions close ('browser-gone') and their tabs are forgotten. Pass the executor object rather than its id
   * where you can: a late close of a connection that was already replaced is then ignored.
   */
  executorDisconnected(executor: Executor | string, options: { graceMs?: number; paused?: boolean } = {}): void {
    const id = typeof executor === 'string' ? executor : executor?.id;
    checkId(id, 'executorId');
    const graceMs = checkDelay(options.graceMs, 'graceMs', this.#graceMs, 0);
    if (this.#closed) return;
    const current = this.#executors.get(id);
    if (current === undefined) return; // never connected, or already disconnected
    if (typeof executor !== 'string' && current !== executor) return; // a replaced connection closing late
    this.#executors.delete(id);

    const paused = options.paused === true;
    const record: Reconnecting = { paused, deadline: Date.now() + graceMs };
    // A browser that may come back is no reason to keep the process alive at shutdown (Deadlines unrefs its timers).
    this.#deadlines.set(`grace:${id}`, graceMs, () => {
      if (this.#reconnecting.get(id) !== record) return;
      this.#reconnecting.delete(id);
      void this.#expire(id);
    });
    this.#reconnecting.set(id, record);

    const timeLeft = formatDuration(graceMs);
    this.#pending.failWhere(
      (pending) => pending.executorId === id,
      () =>
        paused
          ? new BrowserPausedError(timeLeft)
          : graceMs === 0
            ? new BrowserNotConnectedError(id)
            : new BrowserDisconnectedError('disconnected', timeLeft),
    );
  }

  async #expire(executorId: string): Promise<void> {
    try {
      for (const { sessionId } of await this.#store.listSessions(executorId)) {
        await this.#endSession(sessionId, 'browser-gone');
      }
    } catch (error) {
      this.#logger.warn({ executorId, error }, 'could not close the sessions of a browser that did not come back');
    }
  }

  // ── browser state kept beyond one client session ────────────────────────────────────────────────────────────

  /**
   * Takes up `owner`'s kept browser state for one more holder (a client session or connection): resolves with it (its
   * `sessionId` is the daemon session to drive), or undefined when the owner has none, or its session is gone (its
   * browser did not come back).
   */
  async takeState(owner: string, holder: StateHolder): Promise<StateRecord | undefined> {
    this.#assertOpen();
    checkId(owner, 'owner');
    checkId(holder?.id, 'holder.id');
    const state = await this.#store.getState(owner);
    if (state === undefined) return undefined;
    if ((await this.#store.getSession(state.sessionId)) === undefined) {
      await this.#store.updateState(owner, state.handle, () => undefined);
      return undefined;
    }
    this.#clearStateTimer(owner);
    return this.#store.updateState(owner, state.handle, ({ idleSince: _idle, ...rest }) => ({
      ...rest,
      holders: [...rest.holders.filter((h) => h.id !== holder.id), holder],
    }));
  }

  /**
   * Keeps the open session `sessionId` as `owner`'s browser state, held by `holder`, for `keepMs` after its last
   * holder leaves. Undefined if the owner has a state already (another of its sessions kept one first).
   */
  async keepState(
    owner: string,
    sessionId: string,
    keepMs: number,
    holder: StateHolder,
    listed: { principal?: string | undefined; name?: string | undefined } = {},
  ): Promise<StateRecord | undefined> {
    this.#assertOpen();
    checkId(owner, 'owner');
    checkId(sessionId, 'sessionId');
    checkId(holder?.id, 'holder.id');
    const state: StateRecord = {
      handle: generateWireId(),
      owner,
      sessionId,
      keepMs: checkDelay(keepMs, 'keepMs', 0, 1),
      holders: [holder],
      ...(listed.principal !== undefined ? { principal: listed.principal } : {}),
      ...(listed.name !== undefined ? { name: listed.name } : {}),
    };
    return (await this.#store.createState(state)) ? state : undefined;
  }

  /** The kept states of one principal (those kept with it), for its client to list. */
  async statesOf(principal: string): Promise<StateRecord[]> {
    this.#assertOpen();
    checkId(principal, 'principal');
    return (await this.#store.listStates()).filter((s) => s.principal === principal);
  }

  /** Closes `owner`'s kept state now, whoever holds it: its session closes with its tabs. False when it had none. */
  async closeState(owner: string): Promise<boolean> {
    this.#assertOpen();
    checkId(owner, 'owner');
    const state = await this.#store.getState(owner);
    if (state === undefined) return false;
    this.#clearStateTimer(owner);
    await this.#store.updateState(owner, state.handle, () => undefined);
    await this.closeSession(state.sessionId).catch(() => undefined);
    return true;
  }

  /** A holder of a kept state left; with none left it waits its keepMs for the next, then its session closes. */
  async releaseState(owner: string, handle: string, holderId: string): Promise<void> {
    this.#assertOpen();
    await this.#dropHolders(owner, handle, (h) => h.id === holderId);
  }

  /**
   * Drops the holders `gone` picks from every kept state (a cluster: those on instances that died, which will never
   * release), then closes the states that waited their whole keepMs without a holder.
   */
  async expireStates(gone: (holder: StateHolder) => boolean = () => false): Promise<void> {
    for (const state of await this.#store.listStates()) {
      if (state.holders.some(gone)) await this.#dropHolders(state.owner, state.handle, gone);
      else if (stateDue(state) <= 0) await this.#expireState(state);
    }
  }

  async #dropHolders(owner: string, handle: string, drop: (holder: StateHolder) => boolean): Promise<void> {
    const state = await this.#store.updateState(owner, handle, (s) => {
      const holders = s.holders.filter((h) => !drop(h));
      if (holders.length === s.holders.length) return s;
      return holders.length > 0 ? { ...s, holders } : { ...s, holders, idleSince: Date.now() };
    });
    if (state?.holders.length === 0) this.#expireStateLater(state);
  }

  #expireStateLater(state: StateRecord): void {
    this.#deadlines.set(`state:${state.owner}`, Math.max(0, stateDue(state)), () => {
      void this.#expireState(state).catch((error: unknown) => this.#logger.warn({ owner: state.owner, error }, 'could not close a kept browser state'));
    });
  }

  async #expireState(state: StateRecord): Promise<void> {
    if (this.#closed) return;
    let expired = false;
    const now = await this.#store.updateState(state.owner, state.handle, (s) => {
      expired = stateDue(s) <= 0;
      return expired ? undefined : s;
    });
    if (expired) await this.closeSession(state.sessionId).catch(() => undefined);
    else if (now?.holders.length === 0) this.#expireStateLater(now);
  }

  #clearStateTimer(owner: string): void {
    this.#deadlines.clear(`state:${owner}`);
  }

  // ── what other instances of a cluster ask ────────────────────────────────────────────────────────────────────

  /**
   * Runs a command that another instance dispatched (its client's session, this instance's browser) and resolves
   * with the browser's response; that instance's router did the checks and keeps the session's order. Fails as a
   * dispatch would when the browser is away (BrowserDisconnected with the time left, or not connected).
   */
  runForPeer(executorId: string, command: CommandEnvelope, timeoutMs: number): Promise<ResponseEnvelope> {
    try {
      this.#assertOpen();
      checkId(executorId, 'executorId');
      return this.#send(this.#localExecutor(executorId), command, checkDelay(timeoutMs, 'timeoutMs', this.#commandTimeoutMs, 1));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Tells a browser held here that a session whose client another instance serves opened on it. */
  async openSessionForPeer(session: SessionRecord): Promise<void> {
    this.#assertOpen();
    await this.#localExecutor(session.executorId).openSession?.(session);
  }

  /** Closes a session's tabs in a browser held here, for the instance where the session was closed. */
  async closeSessionForPeer(executorId: string, sessionId: string): Promise<void> {
    await this.#executors.get(executorId)?.closeSession(sessionId);
  }

  /**
   * Closes the sessions of a browser that no instance holds any more (its instance died and the grace period ran
   * out), as this router does for its own browsers that do not come back.
   */
  expireExecutor(executorId: string): Promise<void> {
    return this.#expire(executorId);
  }

  /** The instance that sent a command stopped waiting for it: it is failed here and stopped in the browser. */
  cancelForPeer(wireId: string, reason: 'cancelled' | 'timeout'): boolean {
    const pending = this.#pending.get(wireId);
    if (pending === undefined || !this.#pending.fail(wireId, new CommandCancelledError(pending.command.name))) return false;
    this.#executors.get(pending.executorId)?.cancel?.(pending.command, reason);
    return true;
  }

  /**
   * Another instance ended a session (closed, stopped, its browser gone): its queued commands fail here and its
   * listeners are told, as if it had ended here. The store already forgot it.
   */
  sessionEndedElsewhere(sessionId: string, reason: SessionCloseReason): void {
    if (this.#closed) return;
    checkId(sessionId, 'sessionId');
    this.#forget(sessionId, reason);
  }

  /**
   * A disconnected browser reconnected to another instance within its grace period: this instance stops waiting
   * for it without closing its sessions, which are now served there.
   */
  executorMoved(executorId: string): void {
    this.#deadlines.clear(`grace:${executorId}`);
    this.#reconnecting.delete(executorId);
  }

  // ── listeners ─────────────────────────────────────────────────────────────────────────────────────────────────

  /** Subscribes to the browser events of one session's tabs. Listeners are dropped when the session closes. */
  onEvent(sessionId: string, listener: SessionEventListener): Unsubscribe {
    this.#assertOpen();
    checkId(sessionId, 'sessionId');
    checkListener(listener);
    const lane = this.#lanes.get(sessionId);
    const remove = lane.listeners.addEventListener(listener);
    return () => {
      remove();
      this.#lanes.release(sessionId, lane);
    };
  }

  /**
   * Subscribes to the end of one session: closeSession ('closed'), or its browser's grace period ran out
   * ('browser-gone'). Listeners are dropped once told.
   */
  onSessionClosed(sessionId: string, listener: SessionClosedListener): Unsubscribe {
    this.#assertOpen();
    checkId(sessionId, 'sessionId');
    checkListener(listener);
    const lane = this.#lanes.get(sessionId);
    const remove = lane.listeners.addClosedListener(listener);
    return () => {
      remove();
      this.#lanes.release(sessionId, lane);
    };
  }

  // ── the router itself ─────────────────────────────────────────────────────────────────────────────────────────

  /** Counts for /health. */
  async stats(): Promise<RouterStats> {
    return {
      sessions: (await this.#store.listSessions()).length,
      executors: this.#executors.size,
      reconnecting: this.#reconnecting.size,
      pending: this.#pending.size,
    };
  }

  /**
   * Stops the router: every pending and queued command fails with RouterClosed, every timer is cleared and every
   * listener dropped. Sessions stay in the store (a shared store outlives this daemon) and executors are not told;
   * whoever owns them closes them. Safe to call twice. Afterwards, calls that would start work (dispatch,
   * openSession, closeSession, claims, subscriptions, executorConnected) fail with RouterClosed, and what executors
   * report is ignored.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#deadlines.clearAll();
    this.#reconnecting.clear();
    this.#pending.failWhere(() => true, () => new RouterClosedError());
    this.#lanes.closeAll(() => new RouterClosedError());
    this.#executors.clear();
    this.#eventTails.clear();
  }

  // ── helpers ───────────────────────────────────────────────────────────────────────────────────────────────────

  /** Removes a session from the store and from this process; returns it, or undefined if it was not open. */
  async #endSession(sessionId: string, reason: SessionCloseReason): Promise<SessionRecord | undefined> {
    const session = await this.#store.deleteSession(sessionId);
    if (session === undefined) return undefined;
    this.#forget(sessionId, reason);
    this.#remote?.sessionEnded(sessionId, reason);
    return session;
  }

  /** What this process holds for an ended session: its queue, its commands in flight, its listeners. */
  #forget(sessionId: string, reason: SessionCloseReason): void {
    if (reason === 'stopped') this.#rememberStopped(sessionId);
    const closedError = () => (reason === 'stopped' ? new SessionStoppedError() : new SessionClosedError(sessionId));
    const lane = this.#lanes.close(sessionId, closedError());
    this.#pending.failWhere((pending) => pending.command.sessionId === sessionId, closedError);
    lane?.listeners.emitClosed(reason, (error) => this.#listenerFailed(sessionId, error));
  }

  #rememberStopped(sessionId: string): void {
    this.#stopped.add(sessionId);
    // Bounded: the oldest stopped sessions are forgotten first (they then answer "not open").
    if (this.#stopped.size > MAX_STOPPED) this.#stopped.delete(this.#stopped.values().next().value!);
  }

  /** The executor that runs a command now: connected here, or (in a cluster) held by another instance. */
  #liveExecutor(executorId: string): Executor {
    if (!this.#executors.has(executorId) && !this.#reconnecting.has(executorId)) {
      const remote = this.#remote?.get(executorId);
      if (remote !== undefined) return remote;
    }
    return this.#localExecutor(executorId);
  }

  #localExecutor(executorId: string): Executor {
    const executor = this.#executors.get(executorId);
    if (executor !== undefined) return executor;
    const waiting = this.#reconnecting.get(executorId);
    if (waiting !== undefined) {
      const timeLeft = formatDuration(waiting.deadline - Date.now());
      throw waiting.paused ? new BrowserPausedError(timeLeft) : new BrowserDisconnectedError('is disconnected', timeLeft);
    }
    throw new BrowserNotConnectedError(executorId);
  }

  #listenerFailed(sessionId: string, error: unknown): void {
    this.#logger.warn({ sessionId, error }, 'a session listener threw');
  }

  #assertOpen(): void {
    if (this.#closed) throw new RouterClosedError();
  }
}

function checkId(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || value === '') throw new InvalidArgumentError(`"${what}" must be a non-empty string`);
}

function checkDelay(value: number | undefined, what: string, fallback: number, min: 0 | 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > MAX_DELAY_MS) {
    throw new InvalidArgumentError(`"${what}" must be a number of ms from ${min} to ${MAX_DELAY_MS}`);
  }
  return value;
}

/** Ms until an unused kept state is due to close (≤ 0: due now); Infinity while it has holders. */
/** A named kept state as its client lists it: its name, whether it is in use, and, unused, ms until it closes. */
export function listedState(state: StateRecord): { name: string; inUse: boolean; closesInMs?: number } | undefined {
  if (state.name === undefined) return undefined;
  const due = stateDue(state);
  return { name: state.name, inUse: state.holders.length > 0, ...(Number.isFinite(due) ? { closesInMs: Math.max(0, Math.round(due)) } : {}) };
}

export function stateDue(state: StateRecord): number {
  if (state.holders.length > 0 || state.idleSince === undefined) return Infinity;
  return state.idleSince + state.keepMs - Date.now();
}

function checkListener(listener: unknown): void {
  if (typeof listener !== 'function') throw new InvalidArgumentError('a listener must be a function');
}

function checkExecutor(executor: Executor): void {
  if (typeof executor !== 'object' || executor === null) {
    throw new InvalidArgumentError('an executor must be an object');
  }
  checkId(executor.id, 'executor.id');
  if (executor.kind !== 'local' && executor.kind !== 'extension') {
    throw new InvalidArgumentError('"executor.kind" must be "local" or "extension"');
  }
  if (typeof executor.send !== 'function' || typeof executor.closeSession !== 'function') {
    throw new InvalidArgumentError('an executor must have send and closeSession methods');
  }
}
