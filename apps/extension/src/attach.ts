import { connect, ExtensionTransport } from 'puppeteer-core/lib/esm/puppeteer/puppeteer-core-browser.js';
import { holdLeavePrompts, ToolError } from '@browsermcp/tools';
import type { Page } from 'puppeteer-core';
import { AgentTransport } from './agent-transport.js';

type BrowserEntry = Awaited<ReturnType<typeof connect>>;

/** Why no agent acts in a tab whose page (or a frame of it) has a browser extension's origin. */
export function extensionOriginRefusal(tabId: number, url: string): string {
  return `Tab ${tabId} shows a page with a browser extension's origin (${url.split(/[?#]/)[0]}): browsermcp does not let agents act there. Navigate the tab to a web page first.`;
}

/** An extension's page (this one's, or any other's): no place for an agent. */
export function isExtensionPage(url: string): boolean {
  return /^chrome-extension:/i.test(url.trim());
}
const browsers = new WeakMap<Page, BrowserEntry>();

/**
 * Pages no agent acts in, refused up front with a reason: those Chrome does not let extensions debug, and every
 * extension page, ours above all (attached there, an agent's script would run with this extension's privileges: its
 * storage with the pairing secret, the person's tabs).
 */
export function refusalFor(url: string | undefined): string | undefined {
  if (!url) return undefined;
  if (isExtensionPage(url)) {
    return `browsermcp does not let agents act in ${url.split(/[?#]/)[0]}: it is a browser extension's own page. Navigate the tab to a web page first.`;
  }
  if (/^(chrome|edge|about:(?!blank)|devtools|view-source):/i.test(url)) {
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
export async function attachTab(tabId: number, options: { personsOwn?: boolean; onExtensionFrame?: (url: string) => void } = {}): Promise<Page> {
  const tab = await chrome.tabs.get(tabId).catch(() => undefined);
  if (!tab) throw new ToolError(`Tab ${tabId} is gone (closed).`);
  // Where it is and where it is going: attached while an extension page still shows, a command could run there.
  const refusal = refusalFor(tab.url) ?? refusalFor(tab.pendingUrl);
  if (refusal) throw new ToolError(refusal);
  let tabTransport: ExtensionTransport;
  try {
    tabTransport = await ExtensionTransport.connectTab(tabId);
  } catch (err) {
    const message = (err as Error).message;
    if (!/already attached/i.test(message)) throw new ToolError(`Cannot attach to tab ${tabId}: ${message}`);
    // Our own attachment from before the worker was stopped outlives it: let go of it and attach afresh.
    const ours = await chrome.debugger.detach({ tabId }).then(
      () => true,
      () => false,
    );
    if (!ours) throw new ToolError(`Tab ${tabId} is being debugged by something else (DevTools?). Close it and try again.`);
    tabTransport = await ExtensionTransport.connectTab(tabId);
  }
  const transport = new AgentTransport(tabTransport, tabId, options.onExtensionFrame ?? (() => undefined));
  // A document with the extension's origin (an about:blank the extension opened before): no agent acts there.
  const origin = await chrome.debugger.sendCommand({ tabId }, 'Runtime.evaluate', { expression: 'origin', returnByValue: true }).then(
    (answer) => (answer as { result?: { value?: unknown } }).result?.value,
    () => undefined,
  );
  if (typeof origin === 'string' && isExtensionPage(origin)) {
    await chrome.debugger.detach({ tabId }).catch(() => undefined);
    throw new ToolError(extensionOriginRefusal(tabId, tab.url ?? 'about:blank'));
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
