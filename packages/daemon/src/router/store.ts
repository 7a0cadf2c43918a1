// The router's shared state: sessions, which executor (browser) holds each session, and which session owns each
// tab. It sits behind this interface so that several daemons can one day share it (a NATS JetStream KV store)
// without executors or transports changing.
//
// Why async: a shared store answers over the network, and an interface that pretends otherwise would force a
// remote implementation to cache and write behind, which is where two daemons start to disagree about who owns
// a tab. The in-memory store pays a microtask per call for this, which is nothing next to a browser round trip.
// To stay correct across those awaits, writes that race are single calls with the check inside them
// (createSession is create-if-absent, claimTab is compare-and-set, deleteSession releases the tabs with it),
// so a KV implementation can map each one onto one atomic operation.
//
// Tab ids are only unique within one browser (two extensions both have a tab "12"), so tabs are keyed by
// executor id and tab id; a session's tabs are in the namespace of the executor that holds the session.
//
// Which executors are connected is not here: it is whether this process holds the socket, which is local by nature.

import type { SessionSettings } from '@browsermcp/protocol';

/** One open session, as the store keeps it. */
export interface SessionRecord {
  readonly sessionId: string;
  /** The executor (browser) that runs this session's commands; fixed for the session's life. */
  readonly executorId: string;
  /** The MCP client's name, e.g. for the label of the extension's tab group. */
  readonly clientName?: string;
  /**
   * Who the agent is as its gateway or daemon authenticated it ("API key 3f9a12cd", "user alice"), unlike the client
   * name, which the agent chooses: what the person sees and what their approval of it binds to.
   */
  readonly agent?: string;
  /** The user whose access token opened the session, on a daemon with auth: only that user may reach it. */
  readonly userId?: string;
  /**
   * Whose memory budget its tabs count toward (`--max-key-memory`) within its user: a label of the gateway's API key
   * that opened it, the same for that key's sessions and browser states. Absent: the user's (or the daemon's) own.
   */
  readonly account?: string;
  /** The session's current tab as its executor last named it (in an answer or a claim); the browser is the truth. */
  readonly currentTabId?: string;
  /**
   * In a cluster: the instance whose client connection drives the session. A session whose instance is gone and
   * that no other instance takes up within the grace period is closed.
   */
  readonly servedBy?: string;
  /**
   * How its tools behave, when its client said (a gateway's flags through `connect`, within the daemon's own): the
   * browser that runs it applies them, whichever instance that is.
   */
  readonly settings?: SessionSettings;
}

/**
 * A browser state kept beyond one client session (`--keep-browser-state`): one per owner (a hash of the caller's
 * key, or a daemon user), held by a daemon session whose browser context (cookies, storage) and tabs it is. It is
 * what MCP 2026-07-28 calls an explicit state handle: a server-made `handle`, bound to its owner.
 */
export interface StateRecord {
  readonly handle: string;
  readonly owner: string;
  /** The daemon session that holds the state. */
  readonly sessionId: string;
  /** How long the state outlives its last user, in ms. */
  readonly keepMs: number;
  /**
   * Who uses it now: one entry per client session or connection, with the instance it is on in a cluster (so that
   * the uses of an instance that died can be dropped).
   */
  readonly holders: readonly StateHolder[];
  /** When its last holder left (epoch ms); unset while it has holders. */
  readonly idleSince?: number;
  /** Whose states it is among (a gateway's key, as the daemon derives it), for listing them. */
  readonly principal?: string;
  /** What the listing calls it: the handle its client was given. */
  readonly name?: string;
}

export interface StateHolder {
  readonly id: string;
  readonly instance?: string;
}

export interface RouterStore {
  /** Adds a session unless one with that id exists; false if it does. */
  createSession(session: SessionRecord): Promise<boolean>;
  /** The session, as this instance may act on it (in a cluster: a record its server signed; see KvRouterStore). */
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** Every session, or those held by one executor (as getSession reads them). */
  listSessions(executorId?: string): Promise<SessionRecord[]>;
  /**
   * Every record, believed or not, for closing the sessions no one serves (a browser that did not come back): a
   * record another daemon rewrote is still one to clean up. Default listSessions.
   */
  listAllSessions?(executorId?: string): Promise<SessionRecord[]>;
  /**
   * The sessions held by one executor that its instance may open again when the executor connects: in a cluster,
   * those whose records the instances serving them signed (a record another daemon rewrote is left out). Default
   * listSessions.
   */
  listVerifiedSessions?(executorId: string): Promise<SessionRecord[]>;
  /** Removes a session and releases its tabs, in one step; returns the removed session. */
  deleteSession(sessionId: string): Promise<SessionRecord | undefined>;
  /**
   * Records which instance serves the session's client now; false if the session is gone, or (with `as`) is no longer
   * the session the caller checked: its user, agent and settings changed since it was read, or another instance serves
   * it now.
   */
  setServedBy(sessionId: string, instanceId: string, as?: SessionRecord): Promise<boolean>;
  /** Sets (or with undefined clears) the session's current tab; does nothing if the session is gone. */
  setCurrentTab(sessionId: string, tabId: string | undefined): Promise<void>;
  /**
   * Gives a tab of the session's browser to the session unless another session owns it (compare-and-set).
   * Returns the tab's owner afterwards (the session itself on success), or undefined if the session does not exist.
   */
  claimTab(sessionId: string, tabId: string): Promise<string | undefined>;
  /** Forgets a tab (it closed) and clears it as its session's current tab; returns the former owner. */
  releaseTab(executorId: string, tabId: string): Promise<string | undefined>;
  getTabOwner(executorId: string, tabId: string): Promise<string | undefined>;
  /** The tabs a session owns. */
  listTabs(sessionId: string): Promise<string[]>;
  /** Adds the owner's kept state unless it has one; false if it does. */
  createState(state: StateRecord): Promise<boolean>;
  getState(owner: string): Promise<StateRecord | undefined>;
  listStates(): Promise<StateRecord[]>;
  /**
   * Replaces the owner's state with `change(state)` if its handle is still `handle` (compare-and-set; retried when
   * another writer came first); `change` returning undefined deletes it. Resolves with what was written, or
   * undefined when there was no such state (or it was deleted).
   */
  updateState(owner: string, handle: string, change: (state: StateRecord) => StateRecord | undefined): Promise<StateRecord | undefined>;
}

/** The record with its current tab set (or cleared). Records are replaced, never mutated, so a record a caller
 * already holds does not change under it. */
export function withCurrentTab(session: SessionRecord, tabId: string | undefined): SessionRecord {
  const { currentTabId: _replaced, ...rest } = session;
  return tabId === undefined ? rest : { ...rest, currentTabId: tabId };
}
