import { createEvent, ExtensionEvents, type EventEnvelope } from '@browsermcp/protocol';
import type { ToolSession } from '@browsermcp/tools';
import type { Page } from 'puppeteer-core';
import { attachTab, detachTab, refusalFor } from './attach.js';
import type { SessionState } from './session-state.js';

// How long browser_navigate waits for a tab stuck on a chrome:// page to load about:blank before it attaches.
const UNSTICK_TIMEOUT_MS = 5000;

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

  isDetached(tabId: number): boolean {
    return this.#detached.has(tabId);
  }

  /** Why the tab could not be attached, when it could not. */
  errorFor(tabId: number): string | undefined {
    return this.#errors.get(tabId);
  }

  /** Attaches to a session's tab; its console messages and dialogs reach that session (and only it) as events. */
  async attach(s: SessionState, tabId: number): Promise<Page> {
    const page = await attachTab(tabId, { personsOwn: s.sharedTabIds.includes(tabId) });
    this.#pages.set(tabId, page);
    this.#tabOfPage.set(page, tabId);
    page.on('console', (msg) =>
      this.emit(createEvent({ sessionId: s.id, name: ExtensionEvents.console, payload: { level: msg.type(), text: msg.text() }, tabId: String(tabId) })),
    );
    page.on('dialog', (dialog) =>
      this.emit(createEvent({ sessionId: s.id, name: ExtensionEvents.dialog, payload: { type: dialog.type(), message: dialog.message() }, tabId: String(tabId) })),
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

/** A tab the user took to a page extensions may not drive: browser_navigate brings it back via about:blank. */
export async function unstick(tabId: number): Promise<void> {
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
