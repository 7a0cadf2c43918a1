import {
  createCommand,
  generateWireId,
  parseToolResult,
  type ErrorObject,
  type EventEnvelope,
  type PersonStop,
  type ResponseEnvelope,
  type ToolResult,
} from '@browsermcp/protocol';
import { CommandCancelledError, CommandFailedError, executorError, RouterClosedError, SessionClosedError, SessionNotFoundError } from '../errors';
import { Deadlines } from '../deadlines';
import { checkDelay, checkId, checkListener } from './checks';
import { EventRoutes } from './events';
import { ExecutorRegistry } from './executors';
import { KeptStates } from './kept-states';
import type { SessionCloseReason, SessionClosedListener, SessionEventListener, Unsubscribe } from './listeners';
import { PeerApi } from './peer-api';
import { PendingCommands } from './pending';
import { CommandSender } from './send';
import { SessionLanes, type SessionLane } from './session-lanes';
import type { RouterStore, SessionRecord } from './store';
import type { ConnectResult, DispatchRequest, Executor, OpenSessionOptions, ReportedTab, RouterLogger, RouterOptions, RouterStats } from './types';
import { checkRouterOptions } from './router-options';
import { StoppedSessions } from './stopped-sessions';
import { TabClaims } from './tab-claims';
import { checkDispatch } from './requests';
import { admitSession, takeUpSession, type Admission, type TakeUp } from './admission';

export { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_GRACE_PERIOD_MS, DEFAULT_MAX_BROWSER_STATES, DEFAULT_MAX_SESSIONS_PER_USER } from './router-options';

/** How much longer than the browser waits for the person a held command waits, so the browser's answer comes first. */
const HOLD_MARGIN_MS = 5_000;

/**
 * Routes each session's commands to the executor that holds the session: one command at a time per session,
 * sessions in parallel, every command with a wireId and a timeout. It keeps tab ownership so a session only reaches
 * its own tabs, routes browser events to the session that owns the tab, and keeps an executor's sessions for a
 * grace period after it disconnects. Shared state lives in a RouterStore; what is bound to this process (queues,
 * commands in flight, listeners, connected executors, timers) lives here. This class holds sessions, dispatch and
 * listeners; its rooms hold the rest: its options (router-options.ts), who may open or take up a session
 * (admission.ts), what callers ask checked (requests.ts), which tab is whose (tab-claims.ts), sessions the person
 * stopped (stopped-sessions.ts), executors and their grace periods (executors.ts), event routing (events.ts), kept
 * browser states (`states`, kept-states.ts) and what other cluster instances ask (`peer`, peer-api.ts).
 */
export class SessionRouter {
  readonly #store: RouterStore;
  readonly #commandTimeoutMs: number;
  readonly #gracePeriodMs: number;
  readonly #stopped = new StoppedSessions();
  readonly #tabs: TabClaims;
  readonly #logger: RouterLogger;
  readonly #remote: RouterOptions['remote'];

  readonly #pending = new PendingCommands();
  readonly #lanes = new SessionLanes();
  /** Grace periods of disconnected browsers ("grace:<id>") and idle kept states ("state:<owner>"), each a deadline. */
  readonly #deadlines = new Deadlines<string>();
  readonly #sender: CommandSender;
  readonly #executors: ExecutorRegistry;
  readonly #admission: Admission;
  readonly #events: EventRoutes;
  /** Browser state kept beyond one client session. */
  readonly states: KeptStates;
  /** What other instances of a cluster ask of this one. */
  readonly peer: PeerApi;
  #closed = false;

  constructor(options: RouterOptions = {}) {
    const checked = checkRouterOptions(options);
    this.#commandTimeoutMs = checked.commandTimeoutMs;
    this.#gracePeriodMs = checked.gracePeriodMs;
    this.#store = checked.store;
    this.#logger = checked.logger;
    this.#remote = checked.remote;
    this.#tabs = new TabClaims(this.#store, this.#logger);

    const store = this.#store;
    const isClosed = () => this.#closed;
    const assertOpen = () => this.#assertOpen();
    const expire = (executorId: string) => this.#expire(executorId);
    this.#sender = new CommandSender(this.#pending, this.#logger);
    this.#executors = new ExecutorRegistry({
      store,
      pending: this.#pending,
      deadlines: this.#deadlines,
      gracePeriodMs: this.#gracePeriodMs,
      remote: this.#remote,
      expire,
    });
    this.#admission = {
      store,
      executors: this.#executors,
      stopped: this.#stopped,
      remote: this.#remote,
      maxSessionsPerUser: checked.maxSessionsPerUser,
      defaultExecutorId: checked.defaultExecutorId,
      end: (sessionId) => this.#endSession(sessionId, 'closed'),
    };
    this.#events = new EventRoutes({
      store,
      lanes: this.#lanes,
      remote: this.#remote,
      logger: this.#logger,
      hold: (executorId, sessionId, ms) => void this.holdCommands(executorId, sessionId, ms),
      isClosed,
      listenerFailed: (sessionId, error) => this.#listenerFailed(sessionId, error),
    });
    this.states = new KeptStates({
      store,
      deadlines: this.#deadlines,
      logger: this.#logger,
      closeSession: (id) => this.closeSession(id),
      assertOpen,
      isClosed,
      max: checked.maxBrowserStates,
    });
    this.peer = new PeerApi({
      executors: this.#executors,
      sender: this.#sender,
      pending: this.#pending,
      events: this.#events,
      tabs: this.#tabs,
      commandTimeoutMs: this.#commandTimeoutMs,
      assertOpen,
      isClosed,
      forget: (sessionId, reason) => this.#forget(sessionId, reason),
      expire,
    });
  }

  /** How long a disconnected executor's sessions wait for it: the one grace period of the daemon (the app's too). */
  get gracePeriodMs(): number {
    return this.#gracePeriodMs;
  }

  // ── sessions ──────────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Opens a session on a connected executor. Fails with SessionExists if the id is taken, and with a
   * BrowserDisconnected code if the executor is not connected. Await it before dispatching to the session.
   */
  async openSession(sessionId: string, options: OpenSessionOptions = {}): Promise<SessionRecord> {
    this.#assertOpen();
    return admitSession(this.#admission, sessionId, options);
  }

  /**
   * Takes up an open session whose client connection dropped (here, or on another instance of a cluster): it is
   * served from `servedBy` from now on. Another user's session answers SessionNotFound, as a missing one does; one
   * that a live client on another instance drives answers SessionInUse (unless `shared`: a kept browser state, which
   * its owner's connections may drive together).
   */
  async resumeSession(sessionId: string, options: TakeUp = {}): Promise<SessionRecord> {
    this.#assertOpen();
    return takeUpSession(this.#admission, sessionId, options);
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
  async stopSession(executorId: string, sessionId: string, via: PersonStop = 'popup'): Promise<boolean> {
    this.#assertOpen();
    checkId(executorId, 'executorId');
    checkId(sessionId, 'sessionId');
    const session = await this.#store.getSession(sessionId);
    if (session === undefined || session.executorId !== executorId) return false;
    this.#stopped.remember(sessionId, via);
    await this.#endSession(sessionId, 'stopped');
    return true;
  }

  /** How the person stopped `sessionId` (Stop in the popup, Cancel on Chrome's bar); undefined if unknown here. */
  stoppedVia(sessionId: string): PersonStop | undefined {
    return this.#stopped.via(sessionId);
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
      timeoutMs = checkDispatch(sessionId, request, this.#commandTimeoutMs);
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

  /**
   * Runs a tool call in the session's browser (`name` a tool, `payload` its arguments), as dispatch runs a command,
   * and resolves with its result, checked: an answer that is not a tool result fails with CommandFailed naming what is
   * wrong, so no caller has to trust (or cast) what a browser sent.
   */
  async callTool(sessionId: string, request: DispatchRequest): Promise<ToolResult> {
    const data = await this.dispatch(sessionId, request);
    const result = parseToolResult(data);
    if (!result.ok) throw new CommandFailedError(request.name, `the browser answered with something that is not a tool result (${result.message})`);
    return result.value;
  }

  async #run(lane: SessionLane, sessionId: string, request: DispatchRequest, timeoutMs: number): Promise<unknown> {
    const session = await this.#store.getSession(sessionId);
    if (session === undefined && this.#stopped.has(sessionId)) throw this.#stopped.error(sessionId);
    if (session === undefined || (request.userId !== undefined && session.userId !== request.userId)) {
      throw new SessionNotFoundError(sessionId);
    }
    const { executorId } = session;
    // Only a tab the caller named goes out with the command: without one, the executor runs it in the session's
    // current tab, which the browser knows better than this store (the person may have closed or moved it).
    const { tabId } = request;
    // Another instance's browser: that instance checks its tabs, which only it claims (cluster/held-tabs.ts).
    if (tabId !== undefined && this.#executors.holds(executorId)) await this.#tabs.checkOwner(executorId, sessionId, tabId);

    // No await from here to send: a close or a disconnect cannot slip in between these checks and the send.
    this.#assertOpen();
    if (lane.closed) throw new SessionClosedError(sessionId);
    if (request.signal?.aborted) throw new CommandCancelledError(request.name);
    const executor = this.#executors.live(executorId);
    const command = createCommand({ sessionId, name: request.name, payload: request.payload, tabId, originId: request.originId }, generateWireId());
    const response = await this.#sender.send(executor, command, timeoutMs, request.signal, request.folders);

    if (response.error !== undefined) throw executorError(response.error);
    // The executor names the session's current tab after the command (one it opened, selected or moved to). Most
    // commands stay in the tab the session already had: no store writes then (each is a round trip in a cluster).
    if (response.tabId !== undefined && response.tabId !== session.currentTabId) {
      await this.#tabs.adopt(sessionId, response.tabId, this.#executors.get(executorId) === executor);
    }
    return response.data;
  }

  // ── what executors report ─────────────────────────────────────────────────────────────────────────────────────

  /**
   * Settles the command the response answers, for an executor that answers later (the extension's socket). False
   * (and logged) for a late, unknown or foreign response.
   */
  handleResponse(executorId: string, response: ResponseEnvelope): boolean {
    return this.#sender.settle(executorId, response);
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
    return this.#events.queue(executorId, event, true);
  }

  /** An executor reports that a tab of its browser belongs to a session; it becomes the session's current tab. */
  async claimTab(executorId: string, sessionId: string, tabId: string): Promise<void> {
    this.#assertOpen();
    await this.#tabs.claim(executorId, sessionId, tabId);
  }

  /**
   * An executor reports that a tab closed. If it was a session's current tab, the session has none until its next
   * command, which the executor then runs in a tab of its choosing.
   */
  async releaseTab(executorId: string, tabId: string): Promise<boolean> {
    this.#assertOpen();
    return this.#tabs.release(executorId, tabId);
  }

  // ── executors coming and going ────────────────────────────────────────────────────────────────────────────────

  /**
   * Registers a connected executor, or one that is back within its grace period: its sessions work again. The
   * tabs it reports are the truth: tabs of its sessions it no longer reports are released, reported ones are
   * owned again, and reported tabs that no session of its holds any more come back as `orphanedTabs`.
   */
  async executorConnected(executor: Executor, reportedTabs: readonly ReportedTab[] = []): Promise<ConnectResult> {
    this.#assertOpen();
    return this.#executors.connected(executor, reportedTabs);
  }

  /**
   * An executor's connection is gone. Its commands in flight fail now with BrowserDisconnected, and so do its
   * sessions' later commands, until it reconnects (executorConnected with the same id) or `gracePeriodMs` passes; then
   * its sessions close ('browser-gone') and their tabs are forgotten. Pass the executor object rather than its id
   * where you can: a late close of a connection that was already replaced is then ignored.
   */
  executorDisconnected(executor: Executor | string, options: { gracePeriodMs?: number; paused?: boolean } = {}): void {
    this.#executors.disconnected(executor, options, this.#closed);
  }

  /** Closes the sessions of a browser that did not come back (here, or on a cluster instance that died). */
  async #expire(executorId: string): Promise<void> {
    try {
      for (const { sessionId } of await (this.#store.listAllSessions?.(executorId) ?? this.#store.listSessions(executorId))) {
        await this.#endSession(sessionId, 'browser-gone');
      }
    } catch (error) {
      this.#logger.warn({ executorId, error }, 'could not close the sessions of a browser that did not come back');
    }
  }

  // ── listeners ─────────────────────────────────────────────────────────────────────────────────────────────────

  /** Subscribes to the browser events of one session's tabs. Listeners are dropped when the session closes. */
  onEvent(sessionId: string, listener: SessionEventListener): Unsubscribe {
    return this.#subscribe(sessionId, listener, (lane) => lane.listeners.addEventListener(listener));
  }

  /**
   * Subscribes to the end of one session: closeSession ('closed'), or its browser's grace period ran out
   * ('browser-gone'). Listeners are dropped once told.
   */
  onSessionClosed(sessionId: string, listener: SessionClosedListener): Unsubscribe {
    return this.#subscribe(sessionId, listener, (lane) => lane.listeners.addClosedListener(listener));
  }

  #subscribe(sessionId: string, listener: unknown, add: (lane: SessionLane) => () => void): Unsubscribe {
    this.#assertOpen();
    checkId(sessionId, 'sessionId');
    checkListener(listener);
    const lane = this.#lanes.get(sessionId);
    const remove = add(lane);
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
      reconnecting: this.#executors.reconnectingCount,
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
    this.#pending.failWhere(
      () => true,
      () => new RouterClosedError(),
    );
    this.#lanes.closeAll(() => new RouterClosedError());
    this.#executors.clear();
    this.#events.clear();
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
    if (reason === 'stopped' && !this.#stopped.has(sessionId)) this.#stopped.remember(sessionId, undefined);
    const closedError = () => (reason === 'stopped' ? this.#stopped.error(sessionId) : new SessionClosedError(sessionId));
    const lane = this.#lanes.close(sessionId, closedError());
    this.#pending.failWhere((pending) => pending.command.sessionId === sessionId, closedError);
    lane?.listeners.emitClosed(reason, (error) => this.#listenerFailed(sessionId, error));
  }

  #listenerFailed(sessionId: string, error: unknown): void {
    this.#logger.warn({ sessionId, error }, 'a session listener threw');
  }

  #assertOpen(): void {
    if (this.#closed) throw new RouterClosedError();
  }
}
