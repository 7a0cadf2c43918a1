import { createEvent, ExtensionEvents, type EventEnvelope } from '@browsermcp/protocol';
import type { ToolSession } from '@browsermcp/tools';
import type { Page } from 'puppeteer-core';
import { ORIGINLESS_URL } from './agent-transport.js';
import { attachTab, detachTab, extensionOriginRefusal, isExtensionPage, refusalFor } from './attach.js';
import type { SessionState } from './session-state.js';

// How long browser_navigate waits for a tab out of reach to load an origin-free page before it attaches.
const UNSTICK_TIMEOUT_MS = 5000;
// How long showing the blocked page may take (nothing to fetch).
const SHOW_TIMEOUT_MS = 5000;

/**
 * The debugger connections to agents' tabs (chrome.debugger, through puppeteer's ExtensionTransport): which Page is
 * which tab, the tabs whose connection went away while a session still wants them, and why one could not come back.
 */
export class Attachments {
  readonly #pages = new Map<number, Page>();
  readonly #tabOfPage = new WeakMap<Page, number>();
  /**
   * Tabs whose debugger went away while a session still wants them: the user pressed Cancel on the infobar, or took
   * the tab to a page extensions may not drive (chrome://…). The next command attaches again.
   */
  readonly #detached = new Set<number>();
  /** Why a session tab could not be attached again, for the error of the next command that names it. */
  readonly #errors = new Map<number, string>();

  constructor(private readonly emit: (event: EventEnvelope) => void) {}

  /** The tab a Page drives, if it is one of ours. */
  tabOf(page: Page): number | undefined {
    return this.#tabOfPage.get(page);
  }

  /** Whether a debugger of ours drives the tab now (its pages' requests pass the session's guard). */
  isAttached(tabId: number): boolean {
    return this.#pages.has(tabId) && !this.#detached.has(tabId);
  }

  isDetached(tabId: number): boolean {
    return this.#detached.has(tabId);
  }

  /** Why the tab could not be attached, when it could not. */
  errorFor(tabId: number): string | undefined {
    return this.#errors.get(tabId);
  }

  /** Attaches to a session's tab; its console messages and dialogs reach that session (and only it) as events. */
  async attach(s: SessionState, tabId: number): Promise<Page> {
    const page = await attachTab(tabId, {
      personsOwn: s.sharedTabIds.includes(tabId),
      onExtensionFrame: (url) => void this.leave(tabId, url),
    });
    this.#pages.set(tabId, page);
    this.#tabOfPage.set(page, tabId);
    page.on('console', (msg) =>
      this.emit(createEvent({ sessionId: s.id, name: ExtensionEvents.console, payload: { level: msg.type(), text: msg.text() }, tabId: String(tabId) })),
    );
    page.on('dialog', (dialog) =>
      this.emit(
        createEvent({ sessionId: s.id, name: ExtensionEvents.dialog, payload: { type: dialog.type(), message: dialog.message() }, tabId: String(tabId) }),
      ),
    );
    return page;
  }

  /** Attaches every tab of a session whose engine was just made (after a worker restart); a failure is kept for its commands. */
  async attachAll(s: SessionState, tools: ToolSession): Promise<void> {
    for (const tabId of [...s.tabIds]) {
      const page = await this.attach(s, tabId).catch((err: unknown) => {
        this.#errors.set(tabId, err instanceof Error ? err.message : String(err));
        return undefined;
      });
      if (page) tools.adoptPage(page, tabId === s.currentTabId);
    }
  }

  /** Attaches again the session's tabs whose connection went away; a tab still out of reach keeps why. */
  async reattach(s: SessionState, tools: ToolSession): Promise<void> {
    for (const tabId of [...this.#detached]) {
      if (!s.tabIds.includes(tabId)) continue;
      const old = tools.tabs.find((t) => this.#tabOfPage.get(t.page) === tabId)?.page;
      let page: Page;
      try {
        page = await this.attach(s, tabId);
      } catch (err) {
        // Still out of reach: commands on this tab say why (see BrowserSessions.run); the session's other tabs go on.
        const why = err instanceof Error ? err.message : String(err);
        this.#errors.set(tabId, `${why} browser_navigate takes the tab to a web page again; browser_tabs opens or selects another.`);
        continue;
      }
      this.#detached.delete(tabId);
      this.#errors.delete(tabId);
      if (old) tools.replacePage(old, page);
      else tools.adoptPage(page);
    }
  }

  /** Lets go of a tab: `onPage` hears its Page (for the sessions' engines to drop it) before its debugger goes. */
  forget(tabId: number, onPage: (page: Page) => void): void {
    const page = this.#pages.get(tabId);
    this.#pages.delete(tabId);
    this.#detached.delete(tabId);
    if (page) {
      onPage(page);
      void detachTab(page);
    }
  }

  /**
   * Shows `html` (a page the extension wrote) in an attached tab: Chrome lets no extension open a data: URL, and the
   * extension's own pages are no place for the agent that acts in that tab next. Returns false where the tab has no
   * debugger of ours.
   */
  async show(tabId: number, html: string): Promise<boolean> {
    const page = this.#pages.get(tabId);
    if (!page || !this.isAttached(tabId)) return false;
    // An empty page with no origin (AgentTransport), then the words: no script, no link into the extension.
    await page.goto('about:blank', { timeout: SHOW_TIMEOUT_MS }).catch(() => undefined);
    if (page.url() === 'about:blank') await page.setContent(html).catch(() => undefined);
    return true;
  }

  /**
   * The tab is heading for (or shows) `url`, an extension's page or a frame with this extension's origin: its debugger
   * lets go at once, so no agent script runs there with an extension's privileges; the session's commands on it say
   * why until it is back on a web page.
   */
  async leave(tabId: number, url: string): Promise<void> {
    const why = refusalFor(url) ?? extensionOriginRefusal(tabId, url);
    const page = this.#pages.get(tabId);
    if (page) await detachTab(page);
    // Whatever puppeteer did: no debugger of ours stays on that tab.
    await chrome.debugger.detach({ tabId }).catch(() => undefined);
    if (page) this.#detached.add(tabId);
    this.#errors.set(tabId, why);
  }

  /** Chrome reports the debugger gone from an agent's tab (`owned`): the next command attaches again. */
  async detachedByChrome(tabId: number, reason: string, owned: boolean): Promise<void> {
    const page = this.#pages.get(tabId);
    if (!page || !owned) return;
    // 'target_closed' also means the tab moved to a page Chrome keeps from extensions; a closed tab is tabRemoved's.
    if (reason === 'target_closed' && !(await chrome.tabs.get(tabId).catch(() => undefined))) return;
    // Let go of the dead connection first: closing it after a new attachment would detach that one too (puppeteer's
    // ExtensionTransport detaches by tab id). The Page stays in `pages` until replaced, so a tab closed meanwhile
    // still leaves its session.
    await detachTab(page);
    this.#detached.add(tabId);
  }
}

/** Where a tab is, or is about to be: an extension's page there is no place for an agent. */
export async function onExtensionPage(tabId: number): Promise<string | undefined> {
  const tab = await chrome.tabs.get(tabId).catch(() => undefined);
  const url = [tab?.pendingUrl, tab?.url].find((u) => u !== undefined && isExtensionPage(u));
  return url;
}

/**
 * A tab out of an agent's reach (a chrome:// or extension page, a page with the extension's origin): browser_navigate
 * first takes it to an error page with no origin (ORIGINLESS_URL: never about:blank, which the extension's own
 * navigation would give the extension's origin), where the debugger attaches again.
 */
export async function unstick(tabId: number): Promise<void> {
  const tab = await chrome.tabs.get(tabId).catch(() => undefined);
  if (!tab) return;
  const loaded = new Promise<void>((resolve) => {
    const timer = setTimeout(done, UNSTICK_TIMEOUT_MS);
    function done(): void {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(listener);
      resolve();
    }
    // Its own load, not that of the page it leaves: a chrome:// page can finish loading after this began.
    function listener(id: number, change: { status?: string }, updated: { url?: string }): void {
      if (id === tabId && change.status === 'complete' && updated.url === ORIGINLESS_URL) done();
    }
    chrome.tabs.onUpdated.addListener(listener);
  });
  await chrome.tabs.update(tabId, { url: ORIGINLESS_URL });
  await loaded;
}
