import {
  createEvent,
  ExtensionEvents,
  responseFor,
  type CommandEnvelope,
  type EventEnvelope,
  type ResponseEnvelope,
  type SessionSettings,
} from '@browsermcp/protocol';
import {
  errorResult,
  isOptionalCapability,
  runCommand,
  sessionConfigFrom,
  ToolCalls,
  ToolError,
  ToolSession,
  toolsFor,
  WireFileAccess,
  type Capability,
  type StopReason,
  type Tool,
} from '@browsermcp/tools';
import type { Page } from 'puppeteer-core';
import { attachTab, detachTab, refusalFor } from './attach.js';
import { blockedPageUrl, offLimits, offLimitsSite } from './offlimits.js';
import { clearApprovalRequest, showApprovalRequest } from './ask-person.js';
import { forgetApproval, recallApproval, rememberApproval } from './remembered-approvals.js';
import { APPROVAL_WAIT_MS, Approvals, parseAllowedAgents, type AllowedAgent, type Approval, type Decision } from './approvals.js';

interface SessionState {
  id: string;
  /** Commands running now, and when the last one ended: popups count as the session's only around its actions. */
  running: number;
  lastActionEnd: number;
  clientName: string | null;
  /** Who the agent is as its gateway authenticated it (see identityOf), when the daemon says. */
  agent: string | undefined;
  /** While it waits for the person's Allow: what its first call wants, in words ("open example.com/…"). */
  wants: string | undefined;
  /** The person's earlier answer being read back after a browser restart (see sessionOpened). */
  recalled: Promise<void> | undefined;
  /** How its tools behave: the gateway's flags, as a launched browser applies them. */
  settings: SessionSettings;
  tabIds: number[];
  /** Of tabIds, the person's own tabs they shared with it: never closed by it, given back when it ends. */
  sharedTabIds: number[];
  groupId: number | undefined;
  currentTabId: number | undefined;
  tools: ToolSession | undefined;
  /** What it did last, for the popup: the tool, the site, when it ended. */
  lastAction: LastAction | undefined;
  /** Its last actions, oldest first, at most ACTIVITY_SIZE: the popup's activity list. */
  activity: LastAction[];
  /** Notes for its next answer that arrived before its tools were set up (after a worker restart). */
  pendingNotes: string[];
  /** What it asks the person to do right now (browser_request_user), for the popup and the badge. */
  asking: string | undefined;
  /** Uploads and saved files travel with its commands, when the daemon has a file policy (settings.outputDir). */
  files: WireFileAccess | undefined;
}

export interface LastAction {
  tool: string;
  /** A site's own tool the agent called (WebMCP), by the site's name for it. */
  pageTool?: string;
  /** The host of the page it acted on, when there was one. */
  site: string | null;
  at: number;
}

/** One agent as the popup shows it. */
export interface AgentSummary {
  sessionId: string;
  clientName: string | null;
  /** The identity its gateway authenticated ("API key 3f9a12cd"): what the person's approval binds to. */
  agent: string | null;
  /** What its waiting call wants, in words, while it waits for the person's Allow. */
  wants: string | null;
  /** Whether the person allowed it; 'pending' shows Allow once / Always allow / Deny in the popup. */
  approval: Approval | 'unasked';
  /** What it asks the person to do now (a hand-off), or null. */
  asking: string | null;
  tabs: number;
  /** Of its tabs, the person's own that they shared with it (Stop gives them back). */
  sharedTabs: number;
  lastAction: LastAction | null;
  /** Its last actions, newest first (at most ACTIVITY_SIZE). */
  activity: LastAction[];
}

/** What survives a service-worker restart (chrome.storage.session): sessions and their tabs, not the Page objects. */
interface StoredSession {
  approval?: Approval;
  lastAction?: LastAction;
  activity?: LastAction[];
  clientName: string | null;
  agent?: string;
  settings?: SessionSettings;
  tabIds: number[];
  sharedTabIds?: number[];
  groupId: number | undefined;
  currentTabId: number | undefined;
}

const STORAGE_KEY = 'sessions';
// Grey is left out: it reads as "not an agent" next to the person's own groups.
const GROUP_COLORS: `${chrome.tabGroups.Color}`[] = ['blue', 'red', 'yellow', 'green', 'pink', 'purple', 'cyan', 'orange'];
const POPUP_WINDOW_MS = 1500;
/** How many of an agent's last actions the popup lists. */
const ACTIVITY_SIZE = 20;
// How long browser_navigate waits for a tab stuck on a chrome:// page to load about:blank before it attaches.
const UNSTICK_TIMEOUT_MS = 5000;
/** The tools a session may call: the core ones and the optional groups the gateway enabled (--caps). */
function toolsOf(settings: SessionSettings): Tool[] {
  // Context tools need a browser browsermcp owns: here they answer with the engine's clear error.
  return toolsFor((settings.caps ?? []).filter(isOptionalCapability));
}


/**
 * The daemon's sessions in this browser: each owns some tabs, kept together in a tab group labelled with the client's
 * name, and runs the @browsermcp/tools engine on them through chrome.debugger.
 */
export class BrowserSessions {
  private readonly sessions = new Map<string, SessionState>();
  private readonly pages = new Map<number, Page>();
  private readonly calls = new ToolCalls();
  private readonly tabOfPage = new WeakMap<Page, number>();
  /**
   * Tabs whose debugger went away while a session still wants them: the user pressed Cancel on the infobar, or took
   * the tab to a page extensions may not drive (chrome://…). The next command attaches again.
   */
  private readonly detached = new Set<number>();
  /** Tabs this extension is closing itself: it tells the daemon at once, not when Chrome reports the removal. */
  private readonly closing = new Set<number>();
  /** The tabs the person last looked at in each window, newest last: a popup an agent's page opens must not stay in front. */
  private readonly personTabs = new Map<number, number[]>();
  /** Popups of agents' pages just adopted, and when: Chrome may bring one to the front a moment after it opens. */
  private readonly recentPopups = new Map<number, number>();
  /** Why a session tab could not be attached again, for the error of the next command that names it. */
  private readonly attachErrors = new Map<number, string>();

  /** Sites the person put off limits for agents (options page). */
  private offLimitSites: string[] = [];
  /** The person's answers to "may this agent use my browser?"; the badge counts the agents waiting for one. */
  readonly approvals = new Approvals(() => this.updateBadge());

  /** The toolbar badge counts what waits for the person: agents to allow, and steps agents handed to them. */
  private updateBadge(): void {
    let n = this.approvals?.pendingCount ?? 0;
    for (const s of this.sessions?.values() ?? []) if (s.asking) n++;
    void chrome.action.setBadgeText({ text: n ? String(n) : '' }).catch(() => undefined);
    void chrome.action.setBadgeBackgroundColor({ color: '#cf222e' }).catch(() => undefined);
  }

  constructor(private readonly emit: (event: EventEnvelope) => void) {}

  /** Reads the person's approval settings (ask before new agents, the names always allowed) into the approvals. */
  async syncApprovalSettings(): Promise<void> {
    const { askBeforeNewAgents, allowedAgents } = await chrome.storage.local.get(['askBeforeNewAgents', 'allowedAgents']);
    this.approvals.configure(askBeforeNewAgents !== false, parseAllowedAgents(allowedAgents));
  }

  /** Whether the person lets agents see and call the tools sites offer (WebMCP); off until they turn it on. */
  pageToolsAllowed = false;

  /** Reads the person's WebMCP setting; it applies to every session at once. */
  async syncPageTools(): Promise<void> {
    const { allowPageTools } = await chrome.storage.local.get('allowPageTools');
    this.pageToolsAllowed = allowPageTools === true;
    for (const s of this.sessions.values()) s.tools?.configure(this.configFor(s));
  }

  /** The person changed the off-limits list: it applies to every session at once. */
  setOffLimits(sites: string[]): void {
    this.offLimitSites = sites;
    for (const s of this.sessions.values()) s.tools?.configure(this.configFor(s));
  }

  /** The session's tool config: the gateway's settings, and the person's off-limits sites before them. */
  private configFor(s: SessionState): ReturnType<typeof sessionConfigFrom> {
    const config = sessionConfigFrom(s.settings);
    const gateway = config.checkUrl;
    // The extension's own pages (the one that tells the person a site was kept out) are no site of any list.
    const own = chrome.runtime.getURL('');
    return {
      ...config,
      // Sites' own tools: only when the gateway has them on and the person allowed them.
      webmcp: config.webmcp !== false && this.pageToolsAllowed,
      checkUrl: (url) => (url.startsWith(own) ? undefined : (offLimits(url, this.offLimitSites) ?? gateway?.(url))),
    };
  }

  /**
   * A session tab starts loading a page (a link, a redirect, the page itself): an off-limits site is not shown to
   * the agent; the tab shows the person which entry of their list kept it out, and the agent is told in its next
   * answer (it can navigate on from there).
   */
  async navigationStarted(tabId: number, url: string): Promise<void> {
    const owner = this.ownerOf(tabId);
    const site = owner ? offLimitsSite(url, this.offLimitSites) : undefined;
    if (!owner || site === undefined) return;
    await chrome.tabs.update(tabId, { url: blockedPageUrl(chrome.runtime.getURL(''), url, site) }).catch(() => undefined);
    owner.tools?.addNote(
      `A page tried to open ${url.split(/[?#]/)[0]}; the tab shows the person a browsermcp page saying why instead. ${offLimits(url, this.offLimitSites) ?? ''}`,
    );
  }

  async restore(): Promise<void> {
    const stored = (await chrome.storage.session.get(STORAGE_KEY))[STORAGE_KEY] as Record<string, StoredSession> | undefined;
    for (const [id, s] of Object.entries(stored ?? {})) {
      const alive: number[] = [];
      for (const tabId of s.tabIds) if (await chrome.tabs.get(tabId).catch(() => undefined)) alive.push(tabId);
      this.sessions.set(id, {
        id,
        running: 0,
        lastActionEnd: 0,
        clientName: s.clientName,
        agent: s.agent,
        wants: undefined,
        recalled: undefined,
        settings: s.settings ?? {},
        tabIds: alive,
        sharedTabIds: (s.sharedTabIds ?? []).filter((t) => alive.includes(t)),
        groupId: s.groupId,
        currentTabId: s.currentTabId,
        tools: undefined,
        lastAction: s.lastAction,
        activity: s.activity ?? [],
        pendingNotes: [],
        asking: undefined,
        files: filesFor(s.settings ?? {}),
      });
      this.approvals.opened(id, identityOf({ agent: s.agent, clientName: s.clientName }), s.approval);
    }
    for (const tab of await chrome.tabs.query({ active: true })) {
      if (tab.id !== undefined) this.tabActivated(tab.id, tab.windowId);
    }
  }

  private async persist(): Promise<void> {
    const stored: Record<string, StoredSession> = {};
    for (const s of this.sessions.values()) {
      stored[s.id] = {
        clientName: s.clientName,
        ...(s.agent !== undefined ? { agent: s.agent } : {}),
        settings: s.settings,
        tabIds: s.tabIds,
        sharedTabIds: s.sharedTabIds,
        groupId: s.groupId,
        currentTabId: s.currentTabId,
        ...(s.lastAction ? { lastAction: s.lastAction } : {}),
        activity: s.activity,
        approval: this.approvals.of(s.id),
      };
    }
    await chrome.storage.session.set({ [STORAGE_KEY]: stored });
  }

  /** For the hello: every tab held for a session, so the daemon restores ownership after a reconnect. */
  reportTabs(): Array<{ tabId: string; sessionId: string }> {
    return [...this.sessions.values()].flatMap((s) => s.tabIds.map((t) => ({ tabId: String(t), sessionId: s.id })));
  }

  summary(): AgentSummary[] {
    return [...this.sessions.values()].map((s) => ({
      sessionId: s.id,
      clientName: s.clientName,
      agent: s.agent ?? null,
      wants: s.wants ?? null,
      approval: this.approvals.shown(s.id),
      asking: s.asking ?? null,
      tabs: s.tabIds.length,
      sharedTabs: s.sharedTabIds.length,
      lastAction: s.lastAction ?? null,
      activity: [...s.activity].reverse(),
    }));
  }

  /** The person answered Allow once / Always allow / Deny; returns the names to remember as always allowed. */
  decide(sessionId: string, decision: Decision): AllowedAgent[] {
    const s = this.sessions.get(sessionId);
    const always = this.approvals.decide(sessionId, { agent: identityOf(s ?? { agent: undefined, clientName: null }), name: agentName(s?.clientName ?? null) }, decision);
    void this.persist();
    void rememberApproval(sessionId, decision === 'deny' ? 'denied' : 'allowed').catch(() => undefined);
    return always;
  }

  /**
   * The person pressed Stop on an agent in the popup: its tabs close, and the daemon ends its session, so its
   * agent is told it was stopped rather than left to retry.
   */
  async stopByPerson(sessionId: string): Promise<void> {
    if (!this.sessions.has(sessionId)) return;
    this.emit(createEvent({ sessionId, name: ExtensionEvents.sessionStopped, payload: null }));
    await this.sessionClosed(sessionId);
  }

  /**
   * The tab the person can share with an agent: the one they looked at last (in any window) that is a web page and
   * no agent's, or null.
   */
  async shareableTab(): Promise<{ tabId: number; title: string; url: string } | null> {
    const candidates = [...this.personTabs.values()].flatMap((seen) => [...seen].reverse());
    for (const tabId of candidates) {
      if (this.ownerOf(tabId)) continue;
      const tab = await chrome.tabs.get(tabId).catch(() => undefined);
      const url = tab?.url ?? '';
      if (!tab || !/^https?:/i.test(url) || refusalFor(url) || offLimits(url, this.offLimitSites)) continue;
      return { tabId, title: tab.title ?? url, url };
    }
    return null;
  }

  /**
   * The person shares one of their tabs with an agent: it joins the agent's group and its tabs (the daemon hears
   * tab_opened), without taking the agent's current tab; the agent's next answer says so.
   */
  async shareTab(tabId: number, sessionId: string): Promise<void> {
    const s = this.sessions.get(sessionId);
    const tab = await chrome.tabs.get(tabId).catch(() => undefined);
    if (!s || !tab || this.ownerOf(tabId) || !/^https?:/i.test(tab.url ?? '')) return;
    await this.addTab(s, tabId);
    s.sharedTabIds.push(tabId);
    this.emit(createEvent({ sessionId: s.id, name: ExtensionEvents.tabOpened, payload: null, tabId: String(tabId) }));
    if (s.tools) {
      const page = await this.attach(s, tabId).catch(() => undefined);
      if (page) s.tools.adoptPage(page);
    }
    const note = `The person shared a tab with you: ${tab.title ?? ''} (${tab.url}). browser_tabs lists it; select it to work in it.`;
    if (s.tools) s.tools.addNote(note);
    else s.pendingNotes.push(note);
    await this.persist();
  }

  /**
   * Waits until the person allowed this agent (a new agent is asked in the popup): its command is held meanwhile,
   * and its client hears what it waits for. Throws what the agent should know when denied or unanswered.
   */
  private async approved(s: SessionState, command: CommandEnvelope): Promise<void> {
    const name = agentName(s.clientName);
    await s.recalled;
    // Decided with the person's settings as they are now: a change made a moment before the agent came must count.
    if (!this.approvals.known(s.id)) await this.syncApprovalSettings();
    let approval = this.approvals.opened(s.id, identityOf(s));
    if (approval === 'pending') {
      this.waitingForPerson(s, `Waiting for the person to allow "${name}" in the browsermcp popup (Allow once / Always allow / Deny)`, APPROVAL_WAIT_MS);
      s.wants = describeWish(command);
      showApprovalRequest(s.id, name, identityOf(s), s.wants);
      try {
        approval = await this.approvals.waitFor(s.id);
      } finally {
        s.wants = undefined;
        clearApprovalRequest(s.id);
      }
    }
    if (approval === 'allowed') return;
    if (approval === 'denied') {
      throw new ToolError(`The person denied "${name}" the use of their browser (in the browsermcp popup). Do not try again unless they ask you to.`);
    }
    throw new ToolError(
      `The person did not answer within ${APPROVAL_WAIT_MS / 60_000} minutes whether "${name}" may use their browser. Ask them to open the browsermcp popup and press Allow, then call the tool again.`,
    );
  }

  /** Tells the daemon the session's command waits for the person: it holds the command, and the client hears why. */
  private waitingForPerson(s: SessionState, message: string, ms: number): void {
    this.emit(createEvent({ sessionId: s.id, name: ExtensionEvents.waitingForPerson, payload: { message, ms } }));
  }

  /** The person clicked an agent in the popup: bring its current tab (and window) to the front. */
  async show(sessionId: string): Promise<void> {
    const s = this.sessions.get(sessionId);
    const tabId = s?.currentTabId ?? s?.tabIds[0];
    if (tabId === undefined) return;
    const tab = await chrome.tabs.update(tabId, { active: true }).catch(() => undefined);
    if (tab?.windowId !== undefined) await chrome.windows.update(tab.windowId, { focused: true }).catch(() => undefined);
  }

  private session(id: string): SessionState {
    let s = this.sessions.get(id);
    if (!s) {
      s = {
        id,
        running: 0,
        lastActionEnd: 0,
        clientName: null,
        agent: undefined,
        wants: undefined,
        recalled: undefined,
        settings: {},
        tabIds: [],
        sharedTabIds: [],
        groupId: undefined,
        currentTabId: undefined,
        tools: undefined,
        lastAction: undefined,
        activity: [],
        pendingNotes: [],
        asking: undefined,
        files: undefined,
      };
      this.sessions.set(id, s);
    }
    return s;
  }

  /** The daemon opened a session here, or says again that it is open (after a reconnect): its name and settings. */
  sessionOpened(sessionId: string, clientName: string | null, settings: SessionSettings = {}, agent?: string, resumed = false): void {
    const forgotten = resumed && !this.sessions.has(sessionId);
    const s = this.session(sessionId);
    if (forgotten) {
      // The daemon says again a session this browser no longer knows: the browser restarted (or browsermcp was
      // reloaded) since the agent's last call. Its tabs are gone from browsermcp; the person's answer is not.
      s.pendingNotes.push(
        "The person's browser restarted (or browsermcp was reloaded in it) since your last call, and this session's tabs went with it: " +
          'they are closed or no longer yours. browser_navigate opens a new tab; refs from before are gone.',
      );
      s.recalled = recallApproval(sessionId)
        .then((approval) => {
          if (approval !== undefined && !this.approvals.known(sessionId)) this.approvals.opened(sessionId, identityOf(s), approval);
        })
        .catch(() => undefined);
    }
    s.clientName = clientName;
    s.agent = agent;
    if (JSON.stringify(settings) !== JSON.stringify(s.settings)) {
      s.settings = settings;
      s.files = filesFor(settings);
      s.tools?.configure(this.configFor(s));
    }
    if (s.groupId !== undefined) void chrome.tabGroups.update(s.groupId, { title: clientName ?? 'MCP' }).catch(() => undefined);
    void this.persist();
  }

  async sessionClosed(sessionId: string): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (!s) return;
    this.sessions.delete(sessionId);
    this.approvals.forget(sessionId);
    void forgetApproval(sessionId).catch(() => undefined);
    const shared = new Set(s.sharedTabIds);
    await Promise.all(s.tabIds.map((t) => (shared.has(t) ? this.giveBack(t) : this.closeTab(t))));
    await this.persist();
  }

  /**
   * Gives a tab the person shared back to them: out of the agent's group and its tabs, the debugger let go, open as
   * it is. Nothing of theirs is closed by an agent or by Stop.
   */
  private async giveBack(tabId: number): Promise<void> {
    this.forgetTab(tabId);
    await chrome.tabs.ungroup(tabId).catch(() => undefined);
  }

  /**
   * Closes a session tab. A session that closes one of its tabs (browser_tabs close) tells the daemon before its
   * answer, so ownership is released everywhere at once; a closing session's tabs are no news.
   */
  private async closeTab(tabId: number): Promise<void> {
    const owner = this.ownerOf(tabId);
    if (owner?.sharedTabIds.includes(tabId)) {
      if (this.sessions.get(owner.id) === owner) {
        this.emit(createEvent({ sessionId: owner.id, name: ExtensionEvents.tabClosed, payload: null, tabId: String(tabId) }));
        owner.tools?.addNote(`The tab the person shared with you went back to them, still open: browsermcp never closes the person's own tabs.`);
      }
      return this.giveBack(tabId);
    }
    this.closing.add(tabId);
    this.forgetTab(tabId);
    if (owner && this.sessions.get(owner.id) === owner) {
      this.emit(createEvent({ sessionId: owner.id, name: ExtensionEvents.tabClosed, payload: null, tabId: String(tabId) }));
    }
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
      const shared = s.sharedTabIds.indexOf(tabId);
      if (shared >= 0) s.sharedTabIds.splice(shared, 1);
      if (s.currentTabId === tabId) s.currentTabId = s.tabIds[s.tabIds.length - 1];
    }
  }

  /** A tab came to the front: the person's choice, unless it is a popup an agent's page just opened. */
  tabActivated(tabId: number, windowId: number): void {
    const popup = this.recentPopups.get(tabId);
    if (popup !== undefined && Date.now() - popup < POPUP_WINDOW_MS) return void this.giveBackFocus(windowId, tabId);
    const seen = (this.personTabs.get(windowId) ?? []).filter((t) => t !== tabId);
    seen.push(tabId);
    this.personTabs.set(windowId, seen.slice(-5));
  }

  /** The person closed a tab: ownership goes, the daemon hears of it, and its agent is told in its next answer. */
  tabRemoved(tabId: number): void {
    const owner = this.ownerOf(tabId);
    const ours = this.closing.delete(tabId);
    this.forgetTab(tabId);
    if (owner && !ours) this.emit(createEvent({ sessionId: owner.id, name: ExtensionEvents.tabClosed, payload: null, tabId: String(tabId) }));
    void this.persist();
  }

  /**
   * A tab opened by a session's page (target=_blank, window.open; `sourceTabId` from webNavigation, which names the
   * page that opened it: a tab's openerTabId names the tab in front, and agent tabs are in the background) joins
   * that session and becomes current.
   */
  async popupOpened(sourceTabId: number, tabId: number): Promise<void> {
    const owner = this.ownerOf(sourceTabId);
    if (!owner || owner.tabIds.includes(tabId)) return;
    // Only a tab that appears during (or just after) one of the session's actions is one its actions opened.
    const duringAction = owner.running > 0 || Date.now() - owner.lastActionEnd < POPUP_WINDOW_MS;
    const tab = await chrome.tabs.get(tabId).catch(() => undefined);
    if (!tab || !duringAction || refusalFor(tab.pendingUrl ?? tab.url)) return;
    // Past the session's tab limit the page's popup is closed (and counted in the next answer), as in a launched browser.
    if (owner.tools?.refusePopup(tab.pendingUrl ?? tab.url ?? '')) {
      await chrome.tabs.remove(tabId).catch(() => undefined);
      return;
    }
    const adopt = (async () => {
      // Chrome shows a page's popup in front; the person keeps looking at what they were looking at.
      this.recentPopups.set(tabId, Date.now());
      setTimeout(() => this.recentPopups.delete(tabId), POPUP_WINDOW_MS);
      if ((await chrome.tabs.get(tabId).catch(() => undefined))?.active) await this.giveBackFocus(tab.windowId, tabId);
      await this.addTab(owner, tabId);
      this.emit(createEvent({ sessionId: owner.id, name: ExtensionEvents.tabOpened, payload: null, tabId: String(tabId) }));
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

  private async giveBackFocus(windowId: number, popupTabId: number): Promise<void> {
    const seen = this.personTabs.get(windowId) ?? [];
    const previous = [...seen].reverse().find((t) => t !== popupTabId && !this.ownerOf(t));
    if (previous !== undefined) await chrome.tabs.update(previous, { active: true }).catch(() => undefined);
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
    await chrome.tabGroups.update(s.groupId, { title: s.clientName ?? 'MCP', color: await this.colorFor(s) }).catch(() => undefined);
  }

  /** A colour no other agent's group has, so the person tells agents apart; the same agent name prefers the same. */
  private async colorFor(s: SessionState): Promise<`${chrome.tabGroups.Color}`> {
    const taken = new Set<string>();
    for (const other of this.sessions.values()) {
      if (other === s || other.groupId === undefined) continue;
      const group = await chrome.tabGroups.get(other.groupId).catch(() => undefined);
      if (group) taken.add(group.color);
    }
    let hash = 0;
    for (const ch of s.clientName ?? s.id) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    const start = hash % GROUP_COLORS.length;
    for (let i = 0; i < GROUP_COLORS.length; i++) {
      const color = GROUP_COLORS[(start + i) % GROUP_COLORS.length]!;
      if (!taken.has(color)) return color;
    }
    return GROUP_COLORS[start]!;
  }

  private async attach(s: SessionState, tabId: number): Promise<Page> {
    const page = await attachTab(tabId, { personsOwn: s.sharedTabIds.includes(tabId) });
    this.pages.set(tabId, page);
    this.tabOfPage.set(page, tabId);
    // Console messages and dialogs also reach the owning session as events (and only that session).
    page.on('console', (msg) =>
      this.emit(createEvent({ sessionId: s.id, name: ExtensionEvents.console, payload: { level: msg.type(), text: msg.text() }, tabId: String(tabId) })),
    );
    page.on('dialog', (dialog) =>
      this.emit(createEvent({ sessionId: s.id, name: ExtensionEvents.dialog, payload: { type: dialog.type(), message: dialog.message() }, tabId: String(tabId) })),
    );
    return page;
  }

  /** The session's engine, with every tab it holds attached (again, after a worker restart or a detach). */
  private async toolsFor(s: SessionState): Promise<ToolSession> {
    if (!s.tools) {
      const tools = new ToolSession({
        // The person's browser: agent tabs open and stay in the background, never taking focus from the person.
        background: true,
        // Read when a tool needs it: the daemon may send its file policy after the tools are set up.
        get files() {
          return s.files;
        },
        // A hand-off (browser_request_user): the badge and the popup show it, and the daemon holds the call meanwhile.
        person: {
          waiting: (message, ms) => {
            s.asking = message;
            this.updateBadge();
            void this.persist();
            this.waitingForPerson(s, message, ms);
          },
          // The name on its tab group, so the banner says which agent asks.
          get agentName() {
            return s.clientName ?? undefined;
          },
        },
        newPage: async () => {
          const tab = await chrome.tabs.create({ url: 'about:blank', active: false });
          await this.addTab(s, tab.id!);
          const page = await this.attach(s, tab.id!);
          void this.persist();
          this.emit(createEvent({ sessionId: s.id, name: ExtensionEvents.tabOpened, payload: null, tabId: String(tab.id) }));
          return page;
        },
        closePage: async (page) => {
          const tabId = this.tabOfPage.get(page);
          if (tabId !== undefined) await this.closeTab(tabId);
          void this.persist();
        },
      }, this.configFor(s));
      s.tools = tools;
      for (const note of s.pendingNotes.splice(0)) tools.addNote(note);
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

  /** The daemon gave up on a command (its caller cancelled it, or it timed out): it stops and frees its tab. */
  cancel(wireId: string, reason: StopReason): void {
    this.calls.stop(wireId, reason);
  }

  async run(command: CommandEnvelope): Promise<ResponseEnvelope> {
    const s = this.session(command.sessionId);
    let response: ResponseEnvelope;
    s.running++;
    s.files?.receive(command.files);
    try {
      const target = command.tabId !== undefined ? Number(command.tabId) : s.currentTabId;
      await this.approved(s, command);
      const stuck = target !== undefined && this.detached.has(target);
      if (stuck && command.name === 'browser_navigate') await this.unstick(target);
      const tools = await this.toolsFor(s);
      if (target !== undefined && this.detached.has(target)) {
        throw new ToolError(this.attachErrors.get(target) ?? `Tab ${target} lost its debugger connection. Try again.`);
      }
      // The step every host shares (@browsermcp/tools runCommand); a tab the router names that is not the session's
      // is refused here, with why when it could not be attached.
      response = await runCommand(this.calls, tools, command, toolsOf(s.settings), {
        idOf: (page) => {
          const id = this.tabOfPage.get(page);
          return id === undefined ? undefined : String(id);
        },
        unknown: (tabId) => {
          const why = this.attachErrors.get(Number(tabId));
          return why ? `Tab ${tabId} could not be attached: ${why}` : `Tab ${tabId} is not one of this session's tabs.`;
        },
      });
    } catch (err) {
      response = responseFor(command, errorResult(err instanceof Error ? err.message : String(err)));
    } finally {
      s.running--;
      s.lastActionEnd = Date.now();
      if (s.asking) {
        s.asking = undefined;
        this.updateBadge();
      }
    }
    // A tool this browser does not have: a protocol error, and no action to show the person.
    if ('error' in response) return response;
    const current = s.tools?.peekCurrentTab();
    s.currentTabId = current ? this.tabOfPage.get(current.page) : undefined;
    const pageTool = command.name === 'browser_webmcp_call' && typeof (command.payload as { name?: unknown }).name === 'string' ? { pageTool: String((command.payload as { name: string }).name).slice(0, 128) } : {};
    s.lastAction = { tool: command.name, site: siteOf(current?.page.url()), at: Date.now(), ...pageTool };
    s.activity.push(s.lastAction);
    if (s.activity.length > ACTIVITY_SIZE) s.activity.splice(0, s.activity.length - ACTIVITY_SIZE);
    void this.persist();
    const saved = s.files?.takeOutputs() ?? [];
    return { ...response, ...(saved.length ? { files: saved } : {}), ...(s.currentTabId !== undefined ? { tabId: String(s.currentTabId) } : {}) };
  }
}

/** File access for a session whose daemon has a file policy (it sends its output directory), or none. */
function filesFor(settings: SessionSettings): WireFileAccess | undefined {
  return settings.outputDir ? new WireFileAccess(settings.outputDir) : undefined;
}

/** The host a person recognises (example.com), or null for a page without one (about:blank). */
function siteOf(url: string | undefined): string | null {
  try {
    const host = url ? new URL(url).host : '';
    return host || null;
  } catch {
    return null;
  }
}

/** The name the person knows an agent by: its MCP client's name. */
function agentName(clientName: string | null): string {
  return clientName ?? 'MCP client';
}

/**
 * What the person's approval of an agent binds to: the identity its gateway authenticated; from a daemon that sends
 * none, the client's own name, marked as such.
 */
function identityOf(s: Pick<SessionState, 'agent' | 'clientName'>): string {
  return s.agent ?? `client named "${agentName(s.clientName)}"`;
}

/** A waiting call's wish in the person's words: where it wants to go, or which tool it wants to use. */
function describeWish(command: CommandEnvelope): string {
  const url = (command.payload as { url?: unknown } | null)?.url;
  if (command.name === 'browser_navigate' && typeof url === 'string') return `open ${url.length > 120 ? `${url.slice(0, 119)}…` : url}`;
  return `use ${command.name}`;
}
