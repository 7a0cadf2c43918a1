import { defaultSessionConfig, type SessionConfig } from './session-config.js';
import { watchMemory } from '../tab/tab-memory.js';
import type { Page } from 'puppeteer-core';
import { ToolError } from '../engine/errors.js';
import type { GifRecorder } from '../tab/gif.js';
import type { Refusal } from '../tab/request-guard.js';
import { Tab } from '../tab/tab.js';
import { secretPatterns } from './secret-forms.js';
import { withTimeout } from '../engine/timing.js';

export type { FileAccess, UploadFile } from '../engine/files.js';
import type { FileAccess } from '../engine/files.js';

export interface ProxySettings {
  server: string;
  bypass?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
}

export interface ContextInfo {
  name: string;
  pages: number;
  url: string | undefined;
  proxy: string | undefined;
  active: boolean;
}

/** Named browser contexts: only a host that owns the browser (the daemon's local executor) offers them. */
export interface ContextManager {
  create(options: { name: string; proxy?: ProxySettings | undefined; storageState?: string | undefined }): Promise<void>;
  switch(name: string): Promise<void>;
  list(): Promise<ContextInfo[]>;
  close(name: string): Promise<void>;
}

export interface SessionHost {
  /** Opens a new page for this session (in its browser context, or its tab group in the extension). */
  newPage(): Promise<Page>;
  /** Closes a page; defaults to `page.close()`. */
  closePage?(page: Page): Promise<void>;
  files?: FileAccess;
  contexts?: ContextManager;
  /**
   * The named browser context these tabs live in (one ToolSession per context): refs read `name:e2`, so a ref
   * cannot reach into another context by mistake. Undefined for the default context.
   */
  refContext?: string | undefined;
  /**
   * Someone can see this browser (the person's own, or a headed one): browser_request_user hands them a step.
   * Absent for a headless browser, where the tool answers at once that nobody can.
   */
  person?: {
    /** The call now waits for the person (up to `ms`): hosts hold its timeout and say so to the agent's client. */
    waiting(message: string, ms: number): void;
    /** The agent's name as the person knows it (its tab group's label), for the banner; "An agent" without it. */
    readonly agentName?: string | undefined;
  };
  /**
   * The person's own browser: the session's tabs stay in the background and are never brought to the front (a
   * launched browser brings the current tab forward, since only the front tab of a window renders frames).
   */
  background?: boolean;
  /**
   * The origin lists refused a navigation of `page` to `url`: the host may show the tab something else in its place
   * (the extension's blocked page); the answer to the call that led there waits for it, so it describes that page.
   */
  refusedNavigation?(page: Page, url: string): Promise<void>;
  /**
   * A memory budget the host keeps beyond this session (the daemon's per-key `--max-key-memory`, across a key's
   * sessions and browser states): told of each tab, it gets the tab's readings and may have the tab stopped, `why`
   * saying what was passed.
   */
  memory?: {
    track(page: Page, stop: (why: string) => void): { reading(bytes: number): void; forget(): void };
  };
}

export { defaultSessionConfig, ENGINE_TOOL_SETTING_KEYS, type EngineToolSettings, type SessionConfig } from './session-config.js';
export { CONSOLE_LEVELS, type ConsoleLevel } from '../tab/tab-logs.js';

const MB = 1024 * 1024;

/** The tab the model last saw in an answer (its refs are that tab's), and where it was then (see stale-refs.ts). */
export interface AnsweredTab {
  readonly tab: Tab;
  readonly index: number;
  readonly url: string;
}

/** What the tools know of one MCP session: its tabs and which one is current. */
export class ToolSession {
  readonly host: SessionHost;
  config: SessionConfig;
  private tabList: Tab[] = [];
  private current: Tab | undefined;
  private readonly pending = new Set<Promise<unknown>>();
  /** Pages this session is closing itself: their close is not news. */
  private readonly closing = new WeakSet<Page>();
  /** Tabs that closed under the session (the person closed them, or the page closed itself) since the last answer. */
  private closedOutside: Array<{ index: number; url: string }> = [];
  /** What the host has to tell the model in the next answer (a page sent away from a site the person blocked). */
  private notes: string[] = [];
  /** The tab the last answer spoke of: refs in the next call are that tab's (see stale-refs.ts). */
  answeredTab: AnsweredTab | undefined;
  /** The page tools (WebMCP) the last answer reported, as JSON: the next answer reports them only when they change. */
  pageToolsReported = '[]';
  /** The GIF being recorded (browser_gif_start), which every tool call adds a frame to. */
  recorder: GifRecorder | undefined;
  /** The running call's stop signal (a cancel, a timeout): waits that may be long end early with it. */
  signal: AbortSignal | undefined;
  /** Popups closed at the tab limit since the last answer, and the last one's address. */
  private refusedPopups = { count: 0, url: '' };
  /** Requests and documents the origin lists refused since the last answer, and the last one. */
  private refusedRequests = { count: 0, last: undefined as Refusal | undefined };

  constructor(host: SessionHost, config: Partial<SessionConfig> = {}) {
    this.host = host;
    this.config = { ...defaultSessionConfig, ...config };
  }

  /** New settings from the host (the extension hears the gateway's flags again after a reconnect). */
  configure(config: Partial<SessionConfig>): void {
    this.config = { ...defaultSessionConfig, ...config };
    for (const tab of this.tabList) {
      tab.logs.maxLogEntries = this.config.maxLogEntries;
      void tab.guard.use(this.config.checkUrl);
    }
  }

  get tabs(): readonly Tab[] {
    return this.tabList;
  }

  /** What a capture paints over (--secrets): the fields whose text matches one of these. */
  get secretMasks(): RegExp[] {
    return this.config.secrets ? secretPatterns(this.config.secrets).map(([, pattern]) => pattern) : [];
  }

  /** The value of a secret (--secrets) when `name` is one, else undefined. */
  secret(name: string): string | undefined {
    const secrets = this.config.secrets;
    return secrets && Object.hasOwn(secrets, name) ? secrets[name] : undefined;
  }

  /** The current tab, opened on first use. */
  async currentTab(): Promise<Tab> {
    if (this.current && !this.current.isClosed) return this.current;
    return this.newTab();
  }

  peekCurrentTab(): Tab | undefined {
    return this.current && !this.current.isClosed ? this.current : undefined;
  }

  async newTab(): Promise<Tab> {
    if (this.atTabLimit()) {
      throw new ToolError(`This session has ${this.config.maxTabs} tabs, its limit (the gateway's --max-tabs): close one with browser_tabs first.`);
    }
    const page = await this.host.newPage();
    const tab = this.adoptPage(page, true);
    // The lists hold before the tab's first request.
    await tab.guard.use(this.config.checkUrl);
    return tab;
  }

  /** Takes a page into this session (a popup it opened, or a tab reported by the host). */
  adoptPage(page: Page, makeCurrent = false): Tab {
    const existing = this.tabList.find((t) => t.page === page);
    if (existing) {
      if (makeCurrent) this.setCurrent(existing);
      return existing;
    }
    const tab = new Tab(page, {
      refContext: this.host.refContext,
      background: this.host.background,
      settleTimeoutMs: this.config.settleTimeoutMs,
      webmcp: () => this.config.webmcp,
    });
    this.tabList.push(tab);
    if (makeCurrent || !this.current) this.setCurrent(tab);
    this.watch(tab);
    return tab;
  }

  /**
   * Lets a host report work that will add a tab (a popup it is attaching), so the answer to the action that opened
   * it can already show the new tab.
   */
  track(work: Promise<unknown>): void {
    const p = work.catch(() => undefined).finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Waits (briefly) for the work hosts reported with track(). */
  async settled(capMs = 2000): Promise<void> {
    if (!this.pending.size) return;
    await withTimeout(Promise.all(this.pending), capMs);
  }

  /** Drops a page the host saw go away (the person closed its tab) without closing it again. */
  removePage(page: Page): void {
    const tab = this.tabList.find((t) => t.page === page);
    if (tab) this.lost(tab);
  }

  /** Adds a line to the next answer's `### Note`: something the model must know that its call did not cause. */
  addNote(text: string): void {
    this.notes.push(text);
  }

  /** The notes since the last answer; then forgets them. */
  takeNotes(): string[] {
    const notes = this.notes;
    this.notes = [];
    const { count, url } = this.refusedPopups;
    if (count) {
      notes.push(
        `The page opened ${count === 1 ? 'a popup' : `${count.toLocaleString('en')} popups`} (last: ${url}) past this session's limit of ${this.config.maxTabs} tabs; ${count === 1 ? 'it was' : 'they were'} closed. Close tabs with browser_tabs to make room.`,
      );
      this.refusedPopups = { count: 0, url: '' };
    }
    const refused = this.refusedRequests;
    if (refused.last) {
      const { url, why } = refused.last;
      notes.push(
        refused.count === 1
          ? `The page's request for ${url} was refused: ${why}`
          : `${refused.count.toLocaleString('en')} requests from the pages were refused (last: ${url}): ${why}`,
      );
      this.forgetRefusals();
    }
    this.tabList.forEach((tab, index) => {
      if (!tab.printsAsked) return;
      const times = tab.printsAsked === 1 ? '' : ` (${tab.printsAsked.toLocaleString('en')} times)`;
      notes.push(
        `The page in tab ${index} called window.print()${times}: nothing was printed, since Chrome's print dialog would stop the page until someone closed it. For a PDF of the page, use browser_pdf_save.`,
      );
      tab.printsAsked = 0;
    });
    return notes;
  }

  /** The refused requests so far are told by the answer itself (a navigation they stopped): no note for them. */
  forgetRefusals(): void {
    this.refusedRequests = { count: 0, last: undefined };
  }

  private atTabLimit(): boolean {
    return this.tabList.filter((t) => !t.isClosed).length >= this.config.maxTabs;
  }

  /**
   * Whether a popup must be refused because the session holds its most tabs; a refused one is counted for the next
   * answer, and the caller closes it.
   */
  refusePopup(url: string): boolean {
    if (!this.atTabLimit()) return false;
    this.refusedPopups = { count: this.refusedPopups.count + 1, url };
    return true;
  }

  /** The tabs that closed under the session since the last call, with their index and last URL; then forgets them. */
  takeClosedOutside(): Array<{ index: number; url: string }> {
    const closed = this.closedOutside;
    this.closedOutside = [];
    return closed;
  }

  /**
   * Puts a new Page in an old one's place (same index, still current if it was): the extension re-attaches to a
   * tab whose debugger the user detached.
   */
  replacePage(oldPage: Page, newPage: Page): Tab {
    const i = this.tabList.findIndex((t) => t.page === oldPage);
    if (i < 0) return this.adoptPage(newPage);
    const wasCurrent = this.current === this.tabList[i];
    const tab = new Tab(newPage, {
      refContext: this.host.refContext,
      background: this.host.background,
      settleTimeoutMs: this.config.settleTimeoutMs,
      webmcp: () => this.config.webmcp,
    });
    this.tabList[i] = tab;
    this.watch(tab);
    if (wasCurrent) this.current = tab;
    return tab;
  }

  /**
   * Puts a fresh page in the place of a tab whose page holds on (same index, current if it was) and closes that
   * page; the close is the session's own, not news.
   */
  async replaceTab(tab: Tab): Promise<Tab> {
    const page = await this.host.newPage();
    const fresh = this.replacePage(tab.page, page);
    await this.closePage(tab.page).catch(() => undefined);
    return fresh;
  }

  private watch(tab: Tab): void {
    tab.logs.maxLogEntries = this.config.maxLogEntries;
    tab.guard.onRefused = (refusal) => {
      this.refusedRequests = { count: this.refusedRequests.count + 1, last: refusal };
      if (refusal.navigation && this.host.refusedNavigation) this.track(this.host.refusedNavigation(tab.page, refusal.url));
    };
    void tab.guard.use(this.config.checkUrl);
    tab.page.on('popup', (popup) => {
      if (!popup) return;
      // A page that opens popup after popup must not take the browser (and other sessions) down with it.
      if (this.refusePopup(popup.url())) void popup.close().catch(() => undefined);
      else this.adoptPage(popup, true);
    });
    tab.page.once('close', () => this.lost(tab));
    const shared = this.host.memory?.track(tab.page, (why) => this.stopForMemory(tab, why));
    if (shared) tab.page.once('close', () => shared.forget());
    watchMemory(
      tab.page,
      () => this.config.maxTabMemoryMb * MB,
      (bytes) => {
        shared?.forget();
        this.stopForMemory(
          tab,
          `its page held ${Math.round(bytes / MB).toLocaleString('en')} MB of memory, past this session's limit of ${this.config.maxTabMemoryMb.toLocaleString('en')} MB (the gateway's --max-tab-memory)`,
        );
      },
      shared ? (bytes) => shared.reading(bytes) : undefined,
    );
  }

  /** A tab that passed a memory bound (`why`): closed (by the session, so not news twice), and its agent told why. */
  private stopForMemory(tab: Tab, why: string): void {
    const url = tab.page.url();
    // Closed as the session closes its tabs: a tab the person shared goes back to them instead (their host says how).
    // Told once it is gone: the answer that carries the note no longer lists the tab.
    void this.closePage(tab.page)
      .catch(() => undefined)
      .then(() => {
        this.forget(tab);
        this.addNote(`The tab with ${url} was closed: ${why}.`);
      });
  }

  /** A tab's page closed: news for the model unless the session closed it itself. */
  private lost(tab: Tab): void {
    const index = this.tabList.indexOf(tab);
    if (index < 0) return;
    if (!this.closing.has(tab.page)) this.closedOutside.push({ index, url: tab.page.url() });
    this.forget(tab);
  }

  private forget(tab: Tab): void {
    const i = this.tabList.indexOf(tab);
    if (i >= 0) this.tabList.splice(i, 1);
    if (this.current === tab) {
      const next = this.tabList[Math.min(i, this.tabList.length - 1)];
      this.current = undefined;
      if (next) this.setCurrent(next);
    }
  }

  selectTab(index: number): Tab {
    const tab = this.tabList[index];
    if (!tab) throw new ToolError(`No tab at index ${index}. ${this.describeRange()}`);
    this.setCurrent(tab);
    return tab;
  }

  // Only the front tab of a window renders frames and runs timers at full speed: the current tab is brought
  // forward, as a person would look at it.
  private setCurrent(tab: Tab): void {
    this.current = tab;
    if (this.tabList.length > 1 && !this.host.background) void tab.page.bringToFront().catch(() => undefined);
  }

  async closeTab(index?: number): Promise<void> {
    const tab = index === undefined ? this.current : this.tabList[index];
    if (!tab) throw new ToolError(index === undefined ? 'No tab is open.' : `No tab at index ${index}. ${this.describeRange()}`);
    await this.closePage(tab.page);
    this.forget(tab);
  }

  /** Closes every tab of the session. */
  async closeAll(): Promise<void> {
    const tabs = [...this.tabList];
    await Promise.all(tabs.map((t) => this.closePage(t.page).catch(() => undefined)));
    for (const t of tabs) this.forget(t);
  }

  private async closePage(page: Page): Promise<void> {
    this.closing.add(page);
    if (page.isClosed()) return;
    if (this.host.closePage) await this.host.closePage(page);
    else await page.close();
  }

  private describeRange(): string {
    return this.tabList.length ? `Open tabs are numbered 0 to ${this.tabList.length - 1}; list them with browser_tabs {action: "list"}.` : 'No tab is open.';
  }

  async describeTabs(): Promise<string> {
    const titles = new Map(await Promise.all(this.tabList.map(async (t) => [t, await t.title()] as const)));
    // As the tabs stand once the titles are read: a tab closed meanwhile (a memory bound's, whose note this answer
    // may carry) is not listed as open.
    if (!this.tabList.length) return 'No open tabs. Use browser_navigate to open one.';
    return this.tabList.map((t, i) => `- ${i}:${t === this.current ? ' (current)' : ''} [${titles.get(t) ?? ''}] (${t.page.url()})`).join('\n');
  }
}
