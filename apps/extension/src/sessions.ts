import {
  createEvent,
  ExtensionEvents,
  responseFor,
  type CommandEnvelope,
  type EventEnvelope,
  type PersonStop,
  type ResponseEnvelope,
  type SessionSettings,
  type SessionStoppedPayload,
} from '@browsermcp/protocol';
import { errorResult, runCommand, ToolCalls, ToolError, ToolSession, type StopReason } from '@browsermcp/tools';
import type { Page } from 'puppeteer-core';
import { isExtensionPage, refusalFor } from './attach.js';
import { ORIGINLESS_URL } from './agent-transport.js';
import { Attachments, onExtensionPage, unstick } from './attachments.js';
import { clearHandoff, showHandoff } from './ask-person.js';
import { awaitApproval } from './agent-approval.js';
import { blockedPageHtml } from './blocked-page.js';
import { BlockedWaits } from './blocked-waits.js';
import { PersonRules } from './person-rules.js';
import { forgetApproval, recallApproval, rememberApproval } from './remembered-approvals.js';
import { Approvals, canShareWith, parseAllowedAgents, type AllowedAgent, type Decision } from './approvals.js';
import { PersonFocus, POPUP_WINDOW_MS } from './focus.js';
import { agentName, filesFor, identityOf, newSessionState, recordAction, summaryOf, toolsOf, type AgentSummary, type SessionState } from './session-state.js';
import { loadSessions, saveSessions } from './session-store.js';
import { SessionTabs } from './session-tabs.js';
import { renameGroup } from './tab-groups.js';

export type { AgentSummary, LastAction } from './session-state.js';

/**
 * The daemon's sessions in this browser: each owns some tabs, kept together in a tab group labelled with the client's
 * name, and runs the @browsermcp/tools engine on them through chrome.debugger. This class owns the sessions and
 * coordinates; its rooms hold the rest: which tab is whose (session-tabs.ts), the debugger connections
 * (attachments.ts), tab groups (tab-groups.ts), where the person looks (focus.ts), what survives a worker restart
 * (session-store.ts), the person's Allow (agent-approval.ts) and rules (person-rules.ts), and the answers that wait for
 * a blocked page (blocked-waits.ts).
 */
export class BrowserSessions {
  private readonly sessions = new Map<string, SessionState>();
  private readonly calls = new ToolCalls();
  private readonly attachments: Attachments;
  private readonly tabs: SessionTabs;
  private readonly focus = new PersonFocus((tabId) => this.tabs.ownerOf(tabId) !== undefined);

  private readonly rules = new PersonRules();
  /** Tabs heading for an off-limits site: the answer that led there waits until the tab shows why. */
  private readonly blockedWaits = new BlockedWaits();
  /** The person's answers to "may this agent use my browser?"; the badge counts the agents waiting for one. */
  readonly approvals = new Approvals(() => this.updateBadge());

  /** The toolbar badge counts what waits for the person: agents to allow, and steps agents handed to them. */
  private updateBadge(): void {
    let n = this.approvals?.pendingCount ?? 0;
    for (const s of this.sessions?.values() ?? []) if (s.asking) n++;
    void chrome.action.setBadgeText({ text: n ? String(n) : '' }).catch(() => undefined);
    void chrome.action.setBadgeBackgroundColor({ color: '#cf222e' }).catch(() => undefined);
  }

  constructor(private readonly emit: (event: EventEnvelope) => void) {
    this.attachments = new Attachments(emit);
    this.tabs = new SessionTabs(this.sessions, this.attachments, emit);
  }

  /** Reads the person's approval settings (ask before new agents, the names always allowed) into the approvals. */
  async syncApprovalSettings(): Promise<void> {
    const { askBeforeNewAgents, allowedAgents } = await chrome.storage.local.get(['askBeforeNewAgents', 'allowedAgents']);
    this.approvals.configure(askBeforeNewAgents !== false, parseAllowedAgents(allowedAgents));
  }

  /** Whether the person lets agents see and call the tools sites offer (WebMCP); off until they turn it on. */
  get pageToolsAllowed(): boolean {
    return this.rules.pageToolsAllowed;
  }

  /** Reads the person's WebMCP setting; it applies to every session at once. */
  async syncPageTools(): Promise<void> {
    await this.rules.readPageTools();
    this.reconfigure();
  }

  /** The person changed the off-limits list: it applies to every session at once. */
  setOffLimits(sites: string[]): void {
    this.rules.offLimitSites = sites;
    this.reconfigure();
  }

  private reconfigure(): void {
    for (const s of this.sessions.values()) s.tools?.configure(this.rules.configFor(s.settings));
  }

  /**
   * A session tab starts loading a page (a link, the page itself): an off-limits site is not shown to the agent, and
   * the agent is told in its next answer (it can navigate on). In a tab our debugger drives, the session's guard
   * refuses the request (and says why) and navigationFailed shows the person why; a tab without it is stopped here.
   */
  async navigationStarted(tabId: number, url: string): Promise<void> {
    const owner = this.tabs.ownerOf(tabId);
    if (owner && isExtensionPage(url)) return this.pageCommitted(tabId, url);
    const site = owner ? this.rules.offLimitsSite(url) : undefined;
    if (!owner || site === undefined) return;
    // In a tab our debugger drives the session's guard refuses it, says why, and blockedPageFor holds the answer.
    if (this.attachments.isAttached(tabId)) return;
    owner.tools?.addNote(
      `A page tried to open ${url.split(/[?#]/)[0]}; the tab shows the person a browsermcp page saying why instead. ${this.rules.offLimits(url) ?? ''}`,
    );
    await chrome.tabs.update(tabId, { url: ORIGINLESS_URL }).catch(() => undefined);
  }

  /**
   * The session's guard refused `page`'s navigation to `url`: where the person's list kept it out, resolves once the
   * tab shows the blocked page (navigationFailed), so the answer to the call that led there describes the page the
   * person sees, not Chrome's error page before it.
   */
  private blockedPageFor(page: Page, url: string): Promise<void> {
    const tabId = this.attachments.tabOf(page);
    if (tabId === undefined || this.rules.offLimitsSite(url) === undefined) return Promise.resolve();
    return this.blockedWaits.wait(tabId);
  }

  /**
   * A session tab's page did not load: where the guard refused an off-limits site (a link, a redirect to it), the tab
   * shows the person which entry of their list kept it out, in a page with no extension privileges (blocked-page.ts).
   */
  async navigationFailed(tabId: number, url: string): Promise<void> {
    const site = this.tabs.ownerOf(tabId) ? this.rules.offLimitsSite(url) : undefined;
    if (site === undefined) return;
    await this.attachments.show(tabId, blockedPageHtml(url, site));
    this.blockedWaits.shown(tabId);
  }

  /** A session tab shows a new page: on an extension's page, its debugger lets go at once (Attachments.leave). */
  async pageCommitted(tabId: number, url: string): Promise<void> {
    if (this.tabs.ownerOf(tabId) && isExtensionPage(url)) await this.attachments.leave(tabId, url);
  }

  async restore(): Promise<void> {
    for await (const { state, approval } of loadSessions()) {
      this.sessions.set(state.id, state);
      this.approvals.opened(state.id, identityOf(state), approval);
    }
    for (const tab of await chrome.tabs.query({ active: true })) {
      if (tab.id !== undefined) this.tabActivated(tab.id, tab.windowId);
    }
  }

  private async persist(): Promise<void> {
    await saveSessions(this.sessions.values(), (id) => this.approvals.of(id));
  }

  /** For the hello: every tab held for a session, so the daemon restores ownership after a reconnect. */
  reportTabs(): Array<{ tabId: string; sessionId: string }> {
    return [...this.sessions.values()].flatMap((s) => s.tabIds.map((t) => ({ tabId: String(t), sessionId: s.id })));
  }

  summary(): AgentSummary[] {
    return [...this.sessions.values()].map((s) => summaryOf(s, this.approvals.shown(s.id)));
  }

  /** The person answered Allow once / Always allow / Deny; returns the names to remember as always allowed. */
  decide(sessionId: string, decision: Decision): AllowedAgent[] {
    const s = this.sessions.get(sessionId);
    const always = this.approvals.decide(
      sessionId,
      { agent: identityOf(s ?? { agent: undefined, clientName: null }), name: agentName(s?.clientName ?? null) },
      decision,
    );
    void this.persist();
    void rememberApproval(sessionId, decision === 'deny' ? 'denied' : 'allowed').catch(() => undefined);
    return always;
  }

  /**
   * The person pressed Stop on an agent in the popup: its tabs close, and the daemon ends its session, so its
   * agent is told it was stopped rather than left to retry.
   */
  async stopByPerson(sessionId: string, via: PersonStop = 'popup'): Promise<void> {
    if (!this.sessions.has(sessionId)) return;
    this.emit(createEvent({ sessionId, name: ExtensionEvents.sessionStopped, payload: { via } satisfies SessionStoppedPayload }));
    await this.sessionClosed(sessionId);
  }

  /** Every agent here stops, as with Stop on each (Chrome's bar's Cancel let go of all their tabs). */
  private async stopAllByPerson(via: PersonStop): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.stopByPerson(id, via)));
  }

  /** The tab the person can share with an agent: the last they looked at that is a web page agents may reach and no agent's. */
  shareableTab(): Promise<{ tabId: number; title: string; url: string } | null> {
    return this.focus.shareableTab((url) => this.rules.shareable(url));
  }

  /**
   * The person shares one of their tabs with an agent: it joins the agent's group and its tabs (the daemon hears
   * tab_opened), without taking the agent's current tab; the agent's next answer says so.
   */
  async shareTab(tabId: number, sessionId: string): Promise<void> {
    const s = this.sessions.get(sessionId);
    const tab = await chrome.tabs.get(tabId).catch(() => undefined);
    if (!s || !tab || this.tabs.ownerOf(tabId) || !/^https?:/i.test(tab.url ?? '')) return;
    // The popup offers only these; a message naming another (a denied agent) shares nothing.
    if (!canShareWith(summaryOf(s, this.approvals.shown(s.id)))) return;
    await this.tabs.add(s, tabId);
    s.sharedTabIds.push(tabId);
    this.emit(createEvent({ sessionId: s.id, name: ExtensionEvents.tabOpened, payload: null, tabId: String(tabId) }));
    if (s.tools) {
      const page = await this.attachments.attach(s, tabId).catch(() => undefined);
      if (page) s.tools.adoptPage(page);
    }
    const note = `The person shared a tab with you: ${tab.title ?? ''} (${tab.url}). browser_tabs lists it; select it to work in it.`;
    if (s.tools) s.tools.addNote(note);
    else s.pendingNotes.push(note);
    await this.persist();
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
      s = newSessionState(id);
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
      s.tools?.configure(this.rules.configFor(s.settings));
    }
    renameGroup(s);
    void this.persist();
  }

  async sessionClosed(sessionId: string): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (!s) return;
    this.sessions.delete(sessionId);
    this.approvals.forget(sessionId);
    void forgetApproval(sessionId).catch(() => undefined);
    const shared = new Set(s.sharedTabIds);
    await Promise.all(s.tabIds.map((t) => (shared.has(t) ? this.tabs.giveBack(t) : this.tabs.close(t))));
    await this.persist();
  }

  /** A tab came to the front: the person's choice, unless it is a popup an agent's page just opened. */
  tabActivated(tabId: number, windowId: number): void {
    this.focus.activated(tabId, windowId);
  }

  /** The person closed a tab: ownership goes, the daemon hears of it, and its agent is told in its next answer. */
  tabRemoved(tabId: number): void {
    this.tabs.removed(tabId);
    void this.persist();
  }

  /**
   * A tab opened by a session's page (target=_blank, window.open; `sourceTabId` from webNavigation, which names the
   * page that opened it: a tab's openerTabId names the tab in front, and agent tabs are in the background) joins
   * that session and becomes current.
   */
  async popupOpened(sourceTabId: number, tabId: number): Promise<void> {
    const owner = this.tabs.ownerOf(sourceTabId);
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
      this.focus.popupAdopted(tabId);
      if ((await chrome.tabs.get(tabId).catch(() => undefined))?.active) await this.focus.giveBack(tab.windowId, tabId);
      await this.tabs.add(owner, tabId);
      this.emit(createEvent({ sessionId: owner.id, name: ExtensionEvents.tabOpened, payload: null, tabId: String(tabId) }));
      const page = owner.tools ? await this.attachments.attach(owner, tabId).catch(() => undefined) : undefined;
      if (page) owner.tools?.adoptPage(page, true);
      await this.persist();
    })();
    // The action that opened the popup waits for it, so its answer already lists the new tab.
    owner.tools?.track(adopt);
    await adopt;
  }

  /**
   * Chrome reports the debugger gone from a tab: an agent's tab is attached again by its next command, unless the
   * person pressed Cancel on Chrome's "started debugging this browser" bar (which lets go of every tab at once): that
   * is the person's Stop for every agent here. Returns true then; the caller pauses the connection, so nothing attaches
   * again until the person presses Connect.
   */
  async debuggerDetached(tabId: number, reason: string): Promise<boolean> {
    if (reason === 'canceled_by_user' && this.tabs.ownerOf(tabId) !== undefined) {
      await this.stopAllByPerson('debugger_bar');
      return true;
    }
    await this.attachments.detachedByChrome(tabId, reason, this.tabs.ownerOf(tabId) !== undefined);
    return false;
  }

  /** The session's engine, with every tab it holds attached (again, after a worker restart or a detach). */
  private async toolsFor(s: SessionState): Promise<ToolSession> {
    if (!s.tools) {
      const tools = new ToolSession(
        {
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
              showHandoff(s.id, agentName(s.clientName), message);
              this.updateBadge();
              void this.persist();
              this.waitingForPerson(s, message, ms);
            },
            // The name on its tab group, so the banner says which agent asks.
            get agentName() {
              return s.clientName ?? undefined;
            },
          },
          refusedNavigation: (page, url) => this.blockedPageFor(page, url),
          newPage: async () => {
            const tab = await chrome.tabs.create({ url: 'about:blank', active: false });
            await this.tabs.add(s, tab.id!);
            const page = await this.attachments.attach(s, tab.id!);
            void this.persist();
            this.emit(createEvent({ sessionId: s.id, name: ExtensionEvents.tabOpened, payload: null, tabId: String(tab.id) }));
            return page;
          },
          closePage: async (page) => {
            const tabId = this.attachments.tabOf(page);
            if (tabId !== undefined) await this.tabs.close(tabId);
            void this.persist();
          },
        },
        this.rules.configFor(s.settings),
      );
      s.tools = tools;
      for (const note of s.pendingNotes.splice(0)) tools.addNote(note);
      await this.attachments.attachAll(s, tools);
    }
    await this.attachments.reattach(s, s.tools);
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
    s.files?.receive(command.files, command.namedOutputDir);
    try {
      const target = command.tabId !== undefined ? Number(command.tabId) : s.currentTabId;
      await awaitApproval(this.approvals, s, command, {
        sync: () => this.syncApprovalSettings(),
        waiting: (message, ms) => this.waitingForPerson(s, message, ms),
      });
      // Checked at each command, not only when the tab's navigation was heard: no tool runs in an extension's page.
      const extensionPage = target !== undefined ? await onExtensionPage(target) : undefined;
      if (extensionPage !== undefined) await this.attachments.leave(target!, extensionPage);
      const stuck = target !== undefined && this.attachments.isDetached(target);
      if (stuck && command.name === 'browser_navigate') await unstick(target);
      const tools = await this.toolsFor(s);
      if (target !== undefined && this.attachments.isDetached(target)) {
        throw new ToolError(this.attachments.errorFor(target) ?? `Tab ${target} lost its debugger connection. Try again.`);
      }
      // The step every host shares (@browsermcp/tools runCommand); a tab the router names that is not the session's
      // is refused here, with why when it could not be attached.
      response = await runCommand(this.calls, tools, command, toolsOf(s.settings), {
        idOf: (page) => {
          const id = this.attachments.tabOf(page);
          return id === undefined ? undefined : String(id);
        },
        unknown: (tabId) => {
          const why = this.attachments.errorFor(Number(tabId));
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
        clearHandoff(s.id);
        this.updateBadge();
      }
    }
    // A tool this browser does not have: a protocol error, and no action to show the person.
    if ('error' in response) return response;
    const current = s.tools?.peekCurrentTab();
    s.currentTabId = current ? this.attachments.tabOf(current.page) : undefined;
    recordAction(s, command, current?.page.url());
    void this.persist();
    const saved = s.files?.takeOutputs() ?? [];
    return { ...response, ...(saved.length ? { files: saved } : {}), ...(s.currentTabId !== undefined ? { tabId: String(s.currentTabId) } : {}) };
  }
}
