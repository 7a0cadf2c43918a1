import { createEvent, ExtensionEvents, type EventEnvelope } from '@browsermcp/protocol';
import type { Attachments } from './attachments.js';
import type { SessionState } from './session-state.js';
import { addToGroup } from './tab-groups.js';

/**
 * Which session holds which tab, and tabs joining and leaving sessions: into the session's group, closed by the agent,
 * given back to the person, closed by the person. The coordinator owns the sessions; this only reads them.
 */
export class SessionTabs {
  /** Tabs this extension is closing itself: it tells the daemon at once, not when Chrome reports the removal. */
  readonly #closing = new Set<number>();

  constructor(
    private readonly sessions: ReadonlyMap<string, SessionState>,
    private readonly attachments: Attachments,
    private readonly emit: (event: EventEnvelope) => void,
  ) {}

  ownerOf(tabId: number): SessionState | undefined {
    for (const s of this.sessions.values()) if (s.tabIds.includes(tabId)) return s;
    return undefined;
  }

  /** The tab joins the session, in its tab group. */
  async add(s: SessionState, tabId: number): Promise<void> {
    await addToGroup(s, tabId, this.sessions.values());
  }

  /**
   * Gives a tab the person shared back to them: out of the agent's group and its tabs, the debugger let go, open as
   * it is. Nothing of theirs is closed by an agent or by Stop.
   */
  async giveBack(tabId: number): Promise<void> {
    this.#forget(tabId);
    await chrome.tabs.ungroup(tabId).catch(() => undefined);
  }

  /**
   * Closes a session tab. A session that closes one of its tabs (browser_tabs close) tells the daemon before its
   * answer, so ownership is released everywhere at once; a closing session's tabs are no news.
   */
  async close(tabId: number): Promise<void> {
    const owner = this.ownerOf(tabId);
    if (owner?.sharedTabIds.includes(tabId)) {
      if (this.sessions.get(owner.id) === owner) {
        this.emit(createEvent({ sessionId: owner.id, name: ExtensionEvents.tabClosed, payload: null, tabId: String(tabId) }));
        owner.tools?.addNote(`The tab the person shared with you went back to them, still open: browsermcp never closes the person's own tabs.`);
      }
      return this.giveBack(tabId);
    }
    this.#closing.add(tabId);
    this.#forget(tabId);
    if (owner && this.sessions.get(owner.id) === owner) {
      this.emit(createEvent({ sessionId: owner.id, name: ExtensionEvents.tabClosed, payload: null, tabId: String(tabId) }));
    }
    await chrome.tabs.remove(tabId).catch(() => undefined);
  }

  /** Chrome removed a tab: ownership goes, and the daemon hears of it unless this extension closed it (it knows). */
  removed(tabId: number): void {
    const owner = this.ownerOf(tabId);
    const ours = this.#closing.delete(tabId);
    this.#forget(tabId);
    if (owner && !ours) this.emit(createEvent({ sessionId: owner.id, name: ExtensionEvents.tabClosed, payload: null, tabId: String(tabId) }));
  }

  #forget(tabId: number): void {
    this.attachments.forget(tabId, (page) => {
      for (const s of this.sessions.values()) s.tools?.removePage(page);
    });
    for (const s of this.sessions.values()) {
      const i = s.tabIds.indexOf(tabId);
      if (i >= 0) s.tabIds.splice(i, 1);
      const shared = s.sharedTabIds.indexOf(tabId);
      if (shared >= 0) s.sharedTabIds.splice(shared, 1);
      if (s.currentTabId === tabId) s.currentTabId = s.tabIds[s.tabIds.length - 1];
    }
  }
}
