import { withCurrentTab, type RouterStore, type SessionRecord, type StateRecord } from './store';
import { TabOwners } from './tab-owners';

/**
 * The RouterStore of a single daemon. Each method does all of its work before its first (and only) implicit
 * await, so every call is atomic with respect to the others, as the interface asks.
 */
export class InMemoryRouterStore implements RouterStore {
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #tabs = new TabOwners();
  /** owner → kept browser state */
  readonly #states = new Map<string, StateRecord>();

  async createSession(session: SessionRecord): Promise<boolean> {
    if (this.#sessions.has(session.sessionId)) return false;
    this.#sessions.set(session.sessionId, { ...session });
    return true;
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return this.#sessions.get(sessionId);
  }

  async listSessions(executorId?: string): Promise<SessionRecord[]> {
    const all = [...this.#sessions.values()];
    return executorId === undefined ? all : all.filter((session) => session.executorId === executorId);
  }

  async deleteSession(sessionId: string): Promise<SessionRecord | undefined> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return undefined;
    this.#sessions.delete(sessionId);
    this.#tabs.forget(session.executorId, sessionId);
    return session;
  }

  async setServedBy(sessionId: string, instanceId: string): Promise<boolean> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return false;
    this.#sessions.set(sessionId, { ...session, servedBy: instanceId });
    return true;
  }

  async setCurrentTab(sessionId: string, tabId: string | undefined): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    this.#sessions.set(sessionId, withCurrentTab(session, tabId));
  }

  async claimTab(sessionId: string, tabId: string): Promise<string | undefined> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return undefined;
    return this.#tabs.claim(session.executorId, sessionId, tabId, (owner) => this.#sessions.has(owner));
  }

  async releaseTab(executorId: string, tabId: string): Promise<string | undefined> {
    const owner = this.#tabs.release(executorId, tabId);
    if (owner === undefined) return undefined;
    const session = this.#sessions.get(owner);
    if (session?.currentTabId === tabId) this.#sessions.set(owner, withCurrentTab(session, undefined));
    return owner;
  }

  async getTabOwner(executorId: string, tabId: string): Promise<string | undefined> {
    return this.#tabs.owner(executorId, tabId);
  }

  async listTabs(sessionId: string): Promise<string[]> {
    const session = this.#sessions.get(sessionId);
    return session === undefined ? [] : this.#tabs.list(session.executorId, sessionId);
  }

  async createState(state: StateRecord): Promise<boolean> {
    if (this.#states.has(state.owner)) return false;
    this.#states.set(state.owner, { ...state });
    return true;
  }

  async getState(owner: string): Promise<StateRecord | undefined> {
    return this.#states.get(owner);
  }

  async listStates(): Promise<StateRecord[]> {
    return [...this.#states.values()];
  }

  async updateState(owner: string, handle: string, change: (state: StateRecord) => StateRecord | undefined): Promise<StateRecord | undefined> {
    const state = this.#states.get(owner);
    if (state === undefined || state.handle !== handle) return undefined;
    const next = change(state);
    if (next === undefined) this.#states.delete(owner);
    else this.#states.set(owner, next);
    return next;
  }
}
