import type { CommandEnvelope, EventEnvelope, ResponseEnvelope, SessionSettings } from '@browsermcp/protocol';
import type { SessionCloseReason } from './listeners';
import type { RouterStore, SessionRecord } from './store';

export type ExecutorKind = 'local' | 'extension';

/**
 * What runs commands in a browser: the in-process puppeteer executor, another cluster instance's browser, or the
 * extension behind a WebSocket.
 *
 * The router hands it commands with `send`. An executor that answers in this process (the launched browser's, or
 * another instance's through its request) resolves `send` with the response: the answer goes straight to the command
 * waiting for it. One behind a socket resolves with nothing and reports the answer when its message arrives, with
 * `router.handleResponse(executor.id, response)`; events come with `router.handleEvent`.
 */
/**
 * The folders of a session's client for one call, handed with it by the gateway that knows them: its MCP roots
 * (input files may come from them) and its workspace (where a name the model gives for a saved file lands).
 */
export interface ClientFolders {
  readonly roots: readonly string[];
  readonly workspace?: string | undefined;
}

export interface Executor {
  /** Stable across reconnects: an extension that comes back within the grace period gets its sessions back. */
  readonly id: string;
  readonly kind: ExecutorKind;
  /**
   * Hands one command to the browser. A throw or a rejection fails that command at once (CommandFailed, or the
   * daemon error thrown), rather than letting it wait for its timeout. `timeoutMs` is how long the router waits
   * for its answer (an executor that forwards the command elsewhere passes it on).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: an executor behind a socket resolves with nothing (Promise<void>)
  send(command: CommandEnvelope, timeoutMs: number, folders?: ClientFolders): void | Promise<ResponseEnvelope | undefined | void>;
  /**
   * Optional: told when a session opens on this executor, e.g. to name the extension's tab group after the
   * client. A rejection makes openSession fail.
   */
  openSession?(session: SessionRecord): Promise<void>;
  /** Closes the session's tabs (and its browser context, if it has one). */
  closeSession(sessionId: string): Promise<void>;
  /**
   * Optional: the router stopped waiting for a command (its caller cancelled it, or it timed out) and has already
   * answered for it; the executor stops its work and frees the tab, so the session's next command finds it usable.
   */
  cancel?(command: CommandEnvelope, reason: 'cancelled' | 'timeout'): void;
}

/** A tab an executor reports when it (re)connects: the browser is the truth about which tabs still exist. */
export interface ReportedTab {
  readonly tabId: string;
  readonly sessionId: string;
}

export interface ConnectResult {
  /**
   * Reported tabs that no session of this executor holds any more (their session closed, or the grace period
   * ran out, while the browser was away). The caller decides what to do with them, e.g. close them.
   */
  readonly orphanedTabs: ReportedTab[];
  /** The sessions this executor holds, so it can pick up where it was (e.g. name their tab groups again). */
  readonly sessions: SessionRecord[];
}

export interface DispatchRequest {
  /** The tool or command name, e.g. 'browser_click'. */
  readonly name: string;
  readonly payload?: unknown;
  /** A tab this session owns; without it the command goes to the session's current tab (or a new one). */
  readonly tabId?: string;
  /** Opaque id of whatever caused this command upstream, for tracing. */
  readonly originId?: string;
  /** Overrides the router's commandTimeoutMs for this command (e.g. a long wait_for). */
  readonly timeoutMs?: number;
  /**
   * Cancels the command: while it waits in the session's queue it leaves the queue, while it runs the router
   * answers at once (Cancelled) and tells the executor to stop it; the session's next command goes on.
   */
  readonly signal?: AbortSignal;
  /**
   * The authenticated caller: the command runs only if the session is this user's, checked when its turn comes
   * (another user's session answers SessionNotFound, as a missing one does).
   */
  readonly userId?: string;
  /** The client's folders, for a call that reads or saves files (see ClientFolders); only in this process. */
  readonly folders?: ClientFolders;
}

export interface OpenSessionOptions {
  readonly clientName?: string;
  /** Who the agent is as its gateway or daemon authenticated it (see SessionRecord.agent). */
  readonly agent?: string;
  /** The authenticated user the session belongs to (see SessionRecord.userId). */
  readonly userId?: string;
  /** Whose budget its tabs count toward, within its user (see SessionRecord.account). */
  readonly account?: string;
  /** The executor that runs this session; defaults to the router's defaultExecutorId. */
  readonly executorId?: string;
  /** In a cluster: the instance that serves the session's client (SessionRecord.servedBy). */
  readonly servedBy?: string;
  /** How its tools behave (SessionRecord.settings). */
  readonly settings?: SessionSettings;
}

/** A pino/Fastify logger fits. */
export interface RouterLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * How a router of a cluster reaches what other daemons hold. The router stays unaware of how: the cluster gives it
 * executor proxies and carries what one instance must tell the others.
 */
export interface RemoteExecutors {
  /** This instance: it serves a session opened here unless the opener names another (SessionRecord.servedBy). */
  readonly instanceId: string;
  /** An executor that another instance holds, as a proxy; undefined when no instance holds it. */
  get(executorId: string): Executor | undefined;
  /** A session ended on this instance (its store record is gone): the instance serving its client must hear. */
  sessionEnded(sessionId: string, reason: SessionCloseReason): void;
  /** An event of a browser held here, for a session whose client instance `servedBy` serves. */
  forwardEvent(executorId: string, event: EventEnvelope, servedBy: string): void;
  /** Whether a live client connection on `instanceId` drives the session; false when that instance does not answer. */
  drives(instanceId: string, sessionId: string): Promise<boolean>;
}

export interface RouterOptions {
  /** Where sessions and tab ownership live; an InMemoryRouterStore by default. */
  readonly store?: RouterStore;
  /** How long one command may take once sent, in ms. Default 90 000. */
  readonly commandTimeoutMs?: number;
  /** How long an executor's sessions outlive its disconnect, in ms. Default 300 000 (5 minutes). */
  readonly gracePeriodMs?: number;
  /** Most sessions one user (OpenSessionOptions.userId) may have open at once; more are refused. Default 50. */
  readonly maxSessionsPerUser?: number;
  /** Most browser states kept at once (every owner's, the store's count: a cluster's whole); more are refused. Default 200. */
  readonly maxBrowserStates?: number;
  /** The executor a session opens on when openSession names none. */
  readonly defaultExecutorId?: string;
  /** Browsers held by other daemons of a cluster; none without. */
  readonly remote?: RemoteExecutors;
  /** Told about dropped responses and throwing listeners. Silent by default. */
  readonly logger?: RouterLogger;
}

export interface RouterStats {
  readonly sessions: number;
  /** Executors connected now. */
  readonly executors: number;
  /** Executors that disconnected and are within their grace period. */
  readonly reconnecting: number;
  /** Commands sent and waiting for their response. */
  readonly pending: number;
}
