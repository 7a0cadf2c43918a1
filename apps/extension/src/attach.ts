import { connect, ExtensionTransport } from 'puppeteer-core/lib/esm/puppeteer/puppeteer-core-browser.js';
import { holdLeavePrompts, ToolError } from '@browsermcp/tools';
import type { Page } from 'puppeteer-core';

type BrowserEntry = Awaited<ReturnType<typeof connect>>;
const browsers = new WeakMap<Page, BrowserEntry>();

/** Pages Chrome does not let extensions debug; refused up front with a reason instead of a cryptic failure. */
export function refusalFor(url: string | undefined): string | undefined {
  if (!url) return undefined;
  // Our own page that tells the person why a site was kept out: the agent's tab stays the agent's, to navigate on.
  if (typeof chrome !== 'undefined' && url.startsWith(chrome.runtime.getURL('blocked.html'))) return undefined;
  if (/^(chrome|chrome-extension|edge|about:(?!blank)|devtools|view-source):/i.test(url)) {
    return `browsermcp cannot control ${url.split(/[?#]/)[0]}: Chrome does not let extensions drive its own pages. Navigate the tab to a web page first.`;
  }
  if (/^https:\/\/(chromewebstore\.google\.com|chrome\.google\.com\/webstore)/i.test(url)) {
    return 'browsermcp cannot control the Chrome Web Store: Chrome does not let extensions drive it.';
  }
  return undefined;
}

/**
 * Makes an agent's background tab act as a front one without bringing it to the front. Chrome treats a tab behind
 * the person's as hidden: it routes no input to it, closes its dialogs at once, does not paint it and throttles its
 * timers. Focus emulation (a DevTools capture of this tab alone) makes it visible and focused to itself and to Chrome,
 * and leaves the person's tab and window focus as they are. Measured choices: apps/extension/README.md.
 */
async function actInBackground(tabId: number): Promise<void> {
  try {
    await chrome.debugger.sendCommand({ tabId }, 'Emulation.setFocusEmulationEnabled', { enabled: true });
  } catch (err) {
    await chrome.debugger.detach({ tabId }).catch(() => undefined);
    // Without it, input would not reach the tab while it is behind the person's: refuse rather than act blind.
    throw new ToolError(`Cannot make tab ${tabId} act in the background (${(err as Error).message}). Try again; if it persists, reload the tab.`);
  }
}

/** puppeteer-core driving one tab through chrome.debugger: the same engine as the daemon's, one round trip away. */
export async function attachTab(tabId: number, options: { personsOwn?: boolean } = {}): Promise<Page> {
  const tab = await chrome.tabs.get(tabId).catch(() => undefined);
  if (!tab) throw new ToolError(`Tab ${tabId} is gone (closed).`);
  const refusal = refusalFor(tab.url ?? tab.pendingUrl);
  if (refusal) throw new ToolError(refusal);
  let transport: ExtensionTransport;
  try {
    transport = await ExtensionTransport.connectTab(tabId);
  } catch (err) {
    const message = (err as Error).message;
    if (!/already attached/i.test(message)) throw new ToolError(`Cannot attach to tab ${tabId}: ${message}`);
    // Our own attachment from before the worker was stopped outlives it: let go of it and attach afresh.
    const ours = await chrome.debugger.detach({ tabId }).then(() => true, () => false);
    if (!ours) throw new ToolError(`Tab ${tabId} is being debugged by something else (DevTools?). Close it and try again.`);
    transport = await ExtensionTransport.connectTab(tabId);
  }
  await actInBackground(tabId);
  const browser = await connect({ transport, defaultViewport: null });
  const [entryPage] = await browser.pages();
  if (!entryPage) throw new ToolError(`Tab ${tabId} has no page to drive.`);
  // The browser entry point declares its own copy of the Page class; it is the same class at run time.
  const page = entryPage as unknown as Page;
  // Chrome brings a tab whose page asks "Leave site?" in front of the person to ask: in an agent's tab the question
  // is held for the agent instead (browser_handle_dialog), as a dialog is in a launched browser. A tab the person
  // shared keeps Chrome's own: it guards their work, and asking them is right there.
  if (options.personsOwn !== true) {
    await holdLeavePrompts(page).catch(async (err: unknown) => {
      await browser.disconnect().catch(() => undefined);
      throw new ToolError(`Cannot prepare tab ${tabId} for the agent (${(err as Error).message}). Try again; if it persists, reload the tab.`);
    });
  }
  browsers.set(page, browser);
  return page;
}

export async function detachTab(page: Page): Promise<void> {
  const browser = browsers.get(page);
  browsers.delete(page);
  await browser?.disconnect().catch(() => undefined);
}
