import {
  createEvent,
  ErrorCodes,
  errorResponseFor,
  responseFor,
  type CommandEnvelope,
  type EventEnvelope,
  type ResponseEnvelope,
} from '@browsermcp/protocol';
import { callTool, ToolError, ToolSession, toolsFor, UnknownToolError, type ToolResult } from '@browsermcp/tools';
import type { Page } from 'puppeteer-core';
import { attachTab, detachTab, refusalFor } from './attach.js';

interface SessionState {
  id: string;
  /** Commands running now, and when the last one ended: popups count as the session's only around its actions. */
  running: number;
  lastActionEnd: number;
  clientName: string | null;
  tabIds: number[];
  groupId: number | undefined;
  currentTabId: number | undefined;
  tools: ToolSession | undefined;
}

/** What survives a service-worker restart (chrome.storage.session): sessions and their tabs, not the Page objects. */
interface StoredSession {
  clientName: string | null;
  tabIds: number[];
  groupId: number | undefined;
  currentTabId: number | undefined;
}

const STORAGE_KEY = 'sessions';
const POPUP_WINDOW_MS = 1500;
// How long browser_navigate waits for a tab stuck on a chrome:// page to load about:blank before it attaches.
const UNSTICK_TIMEOUT_MS = 5000;
// Context tools need a browser browsermcp owns: here they answer with the engine's clear error.
const TOOLS = toolsFor(['vision', 'pdf', 'gif']);

const errorResult = (message: string): ToolResult => ({ content: [{ type: 'text', text: `### Error\n${message}` }], isError: true });

/**
 * The daemon's sessions in this browser: each owns some tabs, kept together in a tab group labelled with the client's
 * name, and runs the @browsermcp/tools engine on them through chrome.debugger.
 */
export class BrowserSessions {
  private readonly sessions = new Map<string, SessionState>();
  private readonly pages = new Map<number, Page>();
  private readonly tabOfPage = new WeakMap<Page, number>();
  /**
   * Tabs whose debugger went away while a session still wants them: the user pressed Cancel on the infobar, or took
   * the tab to a page extensions may not drive (chrome://…). The next command attaches again.
   */
  private readonly detached = new Set<number>();
  /** Tabs this extension is closing itself: their removal is not news for the daemon. */
  private readonly closing = new Set<number>();
  /** Why a session tab could not be attached again, for the error of the next command that names it. */
  private readonly attachErrors = new Map<number, string>();

  constructor(private readonly emit: (event: EventEnvelope) => void) {}

  async restore(): Promise<void> {
    const stored = (await chrome.storage.session.get(STORAGE_KEY))[STORAGE_KEY] as Record<string, StoredSession> | undefined;
    for (const [id, s] of Object.entries(stored ?? {})) {
      const alive: number[] = [];
      for (const tabId of s.tabIds) if (await chrome.tabs.get(tabId).catch(() => undefined)) alive.push(tabId);
      this.sessions.set(id, { id, running: 0, lastActionEnd: 0, clientName: s.clientName, tabIds: alive, groupId: s.groupId, currentTabId: s.currentTabId, tools: undefined });
    }
  }

  private async persist(): Promise<void> {
    const stored: Record<string, StoredSession> = {};
    for (const s of this.sessions.values()) {
      stored[s.id] = { clientName: s.clientName, tabIds: s.tabIds, groupId: s.groupId, currentTabId: s.currentTabId };
    }
    await chrome.storage.session.set({ [STORAGE_KEY]: stored });
  }

  /** For the hello: every tab held for a session, so the daemon restores ownership after a reconnect. */
  reportTabs(): Array<{ tabId: string; sessionId: string }> {
    return [...this.sessions.values()].flatMap((s) => s.tabIds.map((t) => ({ tabId: String(t), sessionId: s.id })));
  }

  summary(): Array<{ sessionId: string; clientName: string | null; tabs: number }> {
    return [...this.sessions.values()].map((s) => ({ sessionId: s.id, clientName: s.clientName, tabs: s.tabIds.length }));
  }

  private session(id: string): SessionState {
    let s = this.sessions.get(id);
    if (!s) {
      s = { id, running: 0, lastActionEnd: 0, clientName: null, tabIds: [], groupId: undefined, currentTabId: undefined, tools: undefined };
      this.sessions.set(id, s);
    }
    return s;
  }

  sessionOpened(sessionId: string, clientName: string | null): void {
    const s = this.session(sessionId);
    s.clientName = clientName;
    if (s.groupId !== undefined) void chrome.tabGroups.update(s.groupId, { title: clientName ?? 'MCP' }).catch(() => undefined);
    void this.persist();
  }

  async sessionClosed(sessionId: string): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (!s) return;
    this.sessions.delete(sessionId);
    await Promise.all(s.tabIds.map((t) => this.closeTab(t)));
    await this.persist();
  }

  private async closeTab(tabId: number): Promise<void> {
    this.closing.add(tabId);
    this.forgetTab(tabId);
    await chrome.tabs.remove(tabId).catch(() => undefined);
  }

  private forgetTab(tabId: number): void {
    const page = this.pages.get(tabId);
    this.pages.delete(tabId);
    this.detached.delete(tabId);
    if (page) {
      for (const s of this.sessions.values()) s.tools?.removePage(page);
      void detachTab(page);
    }
    for (const s of this.sessions.values()) {
      const i = s.tabIds.indexOf(tabId);
      if (i >= 0) s.tabIds.splice(i, 1);
      if (s.currentTabId === tabId) s.currentTabId = s.tabIds[s.tabIds.length - 1];
    }
  }

  /** The user closed a tab: ownership goes, and the daemon hears of it. */
  tabRemoved(tabId: number): void {
    const owner = this.ownerOf(tabId);
    const ours = this.closing.delete(tabId);
    this.forgetTab(tabId);
    if (owner && !ours) this.emit(createEvent({ sessionId: owner.id, name: 'tab_closed', payload: null, tabId: String(tabId) }));
    void this.persist();
  }

  /** A tab opened by a session's page (target=_blank, window.open) joins that session and becomes current. */
  async tabCreated(tab: chrome.tabs.Tab): Promise<void> {
    if (tab.id === undefined || tab.openerTabId === undefined) return;
    const owner = this.ownerOf(tab.openerTabId);
    if (!owner || owner.tabIds.includes(tab.id)) return;
    // Chrome also names an opener for tabs the user opens while an agent's tab is active: only a tab that appears
    // during (or just after) one of the session's actions is the page's popup.
    const duringAction = owner.running > 0 || Date.now() - owner.lastActionEnd < POPUP_WINDOW_MS;
    if (!duringAction || refusalFor(tab.pendingUrl ?? tab.url)) return;
    const tabId = tab.id;
    const adopt = (async () => {
      await this.addTab(owner, tabId);
      this.emit(createEvent({ sessionId: owner.id, name: 'tab_opened', payload: null, tabId: String(tabId) }));
      const page = owner.tools ? await this.attach(owner, tabId).catch(() => undefined) : undefined;
      if (page) owner.tools?.adoptPage(page, true);
      await this.persist();
    })();
    // The action that opened the popup waits for it, so its answer already lists the new tab.
    owner.tools?.track(adopt);
    await adopt;
  }

  async debuggerDetached(tabId: number, reason: string): Promise<void> {
    const page = this.pages.get(tabId);
    if (!page || !this.ownerOf(tabId)) return;
    // 'target_closed' also means the tab moved to a page Chrome keeps from extensions; a closed tab is tabRemoved's.
    if (reason === 'target_closed' && !(await chrome.tabs.get(tabId).catch(() => undefined))) return;
    // Let go of the dead connection first: closing it after a new attachment would detach that one too (puppeteer's
    // ExtensionTransport detaches by tab id). The Page stays in `pages` until replaced, so a tab closed meanwhile
    // still leaves its session.
    await detachTab(page);
    this.detached.add(tabId);
  }

  /** A tab the user took to a page extensions may not drive: browser_navigate brings it back via about:blank. */
  private async unstick(tabId: number): Promise<void> {
    const tab = await chrome.tabs.get(tabId).catch(() => undefined);
    if (!tab || !refusalFor(tab.url ?? tab.pendingUrl)) return;
    const loaded = new Promise<void>((resolve) => {
      const timer = setTimeout(done, UNSTICK_TIMEOUT_MS);
      function done(): void {
        clearTimeout(timer);
        chrome.tabs.onUpdated.removeListener(listener);
        resolve();
      }
      function listener(id: number, change: { status?: string }, t: chrome.tabs.Tab): void {
        if (id === tabId && change.status === 'complete' && t.url === 'about:blank') done();
      }
      chrome.tabs.onUpdated.addListener(listener);
    });
    await chrome.tabs.update(tabId, { url: 'about:blank' });
    await loaded;
  }

  private ownerOf(tabId: number): SessionState | undefined {
    for (const s of this.sessions.values()) if (s.tabIds.includes(tabId)) return s;
    return undefined;
  }

  private async addTab(s: SessionState, tabId: number): Promise<void> {
    s.tabIds.push(tabId);
    try {
      if (s.groupId !== undefined) {
        await chrome.tabs.group({ groupId: s.groupId, tabIds: [tabId] });
        return;
      }
    } catch {
      // The user ungrouped or closed the group: make a new one.
    }
    s.groupId = await chrome.tabs.group({ tabIds: [tabId] });
    await chrome.tabGroups.update(s.groupId, { title: s.clientName ?? 'MCP', color: 'blue' }).catch(() => undefined);
  }

  private async attach(s: SessionState, tabId: number): Promise<Page> {
    const page = await attachTab(tabId);
    this.pages.set(tabId, page);
    this.tabOfPage.set(page, tabId);
    // Console messages and dialogs also reach the owning session as events (and only that session).
    page.on('console', (msg) =>
      this.emit(createEvent({ sessionId: s.id, name: 'console', payload: { level: msg.type(), text: msg.text() }, tabId: String(tabId) })),
    );
    page.on('dialog', (dialog) =>
      this.emit(createEvent({ sessionId: s.id, name: 'dialog', payload: { type: dialog.type(), message: dialog.message() }, tabId: String(tabId) })),
    );
    return page;
  }

  /** The session's engine, with every tab it holds attached (again, after a worker restart or a detach). */
  private async toolsFor(s: SessionState): Promise<ToolSession> {
    if (!s.tools) {
      const tools = new ToolSession({
        newPage: async () => {
          const tab = await chrome.tabs.create({ url: 'about:blank', active: true });
          await this.addTab(s, tab.id!);
          const page = await this.attach(s, tab.id!);
          void this.persist();
          this.emit(createEvent({ sessionId: s.id, name: 'tab_opened', payload: null, tabId: String(tab.id) }));
          return page;
        },
        closePage: async (page) => {
          const tabId = this.tabOfPage.get(page);
          if (tabId !== undefined) await this.closeTab(tabId);
          void this.persist();
        },
      });
      s.tools = tools;
      for (const tabId of [...s.tabIds]) {
        const page = await this.attach(s, tabId).catch((err: unknown) => {
          this.attachErrors.set(tabId, err instanceof Error ? err.message : String(err));
          return undefined;
        });
        if (page) tools.adoptPage(page, tabId === s.currentTabId);
      }
    }
    for (const tabId of [...this.detached]) {
      if (!s.tabIds.includes(tabId)) continue;
      const old = s.tools.tabs.find((t) => this.tabOfPage.get(t.page) === tabId)?.page;
      let page: Page;
      try {
        page = await this.attach(s, tabId);
      } catch (err) {
        // Still out of reach: commands on this tab say why (see run); the session's other tabs go on.
        const why = err instanceof Error ? err.message : String(err);
        this.attachErrors.set(tabId, `${why} browser_navigate takes the tab to a web page again; browser_tabs opens or selects another.`);
        continue;
      }
      this.detached.delete(tabId);
      this.attachErrors.delete(tabId);
      if (old) s.tools.replacePage(old, page);
      else s.tools.adoptPage(page);
    }
    return s.tools;
  }

  async run(command: CommandEnvelope): Promise<ResponseEnvelope> {
    const s = this.session(command.sessionId);
    let result: ToolResult;
    s.running++;
    try {
      const target = command.tabId !== undefined ? Number(command.tabId) : s.currentTabId;
      const stuck = target !== undefined && this.detached.has(target);
      if (stuck && command.name === 'browser_navigate') await this.unstick(target);
      const tools = await this.toolsFor(s);
      if (target !== undefined && this.detached.has(target)) {
        throw new ToolError(this.attachErrors.get(target) ?? `Tab ${target} lost its debugger connection. Try again.`);
      }
      if (command.tabId !== undefined) {
        const index = tools.tabs.findIndex((t) => String(this.tabOfPage.get(t.page)) === command.tabId);
        if (index < 0) {
          const why = this.attachErrors.get(Number(command.tabId));
          throw new ToolError(why ? `Tab ${command.tabId} could not be attached: ${why}` : `Tab ${command.tabId} is not one of this session's tabs.`);
        }
        tools.selectTab(index);
      }
      result = await callTool(tools, command.name, command.payload ?? {}, TOOLS);
    } catch (err) {
      if (err instanceof UnknownToolError) return errorResponseFor(command, { code: ErrorCodes.MethodNotFound, message: err.message });
      result = errorResult(err instanceof Error ? err.message : String(err));
    } finally {
      s.running--;
      s.lastActionEnd = Date.now();
    }
    const current = s.tools?.peekCurrentTab();
    s.currentTabId = current ? this.tabOfPage.get(current.page) : undefined;
    void this.persist();
    const response = responseFor(command, result);
    return s.currentTabId !== undefined ? { ...response, tabId: String(s.currentTabId) } : response;
  }
}
