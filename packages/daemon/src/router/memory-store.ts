import { withCurrentTab, type RouterStore, type SessionRecord, type StateRecord } from './store';

/**
 * The RouterStore of a single daemon. Each method does all of its work before its first (and only) implicit
 * await, so every call is atomic with respect to the others, as the interface asks.
 */
export class InMemoryRouterStore implements RouterStore {
  readonly #sessions = new Map<string, SessionRecord>();
  /** executorId → tabId → owning sessionId */
  readonly #tabs = new Map<string, Map<string, string>>();
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
    const tabs = this.#tabs.get(session.executorId);
    if (tabs !== undefined) {
      for (const [tabId, owner] of tabs) if (owner === sessionId) tabs.delete(tabId);
      if (tabs.size === 0) this.#tabs.delete(session.executorId);
    }
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
    let tabs = this.#tabs.get(session.executorId);
    if (tabs === undefined) {
      tabs = new Map();
      this.#tabs.set(session.executorId, tabs);
    }
    const owner = tabs.get(tabId);
    if (owner !== undefined) return owner;
    tabs.set(tabId, sessionId);
    return sessionId;
  }

  async releaseTab(executorId: string, tabId: string): Promise<string | undefined> {
    const tabs = this.#tabs.get(executorId);
    const owner = tabs?.get(tabId);
    if (tabs === undefined || owner === undefined) return undefined;
    tabs.delete(tabId);
    if (tabs.size === 0) this.#tabs.delete(executorId);
    const session = this.#sessions.get(owner);
    if (session?.currentTabId === tabId) this.#sessions.set(owner, withCurrentTab(session, undefined));
    return owner;
  }

  async getTabOwner(executorId: string, tabId: string): Promise<string | undefined> {
    return this.#tabs.get(executorId)?.get(tabId);
  }

  async listTabs(sessionId: string): Promise<string[]> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return [];
    const tabs = this.#tabs.get(session.executorId);
    if (tabs === undefined) return [];
    return [...tabs].filter(([, owner]) => owner === sessionId).map(([tabId]) => tabId);
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
