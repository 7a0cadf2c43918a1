import { connect, ExtensionTransport } from 'puppeteer-core/lib/esm/puppeteer/puppeteer-core-browser.js';
import { ToolError } from '@browsermcp/tools';
import type { Page } from 'puppeteer-core';

type BrowserEntry = Awaited<ReturnType<typeof connect>>;
const browsers = new WeakMap<Page, BrowserEntry>();

/** Pages Chrome does not let extensions debug; refused up front with a reason instead of a cryptic failure. */
export function refusalFor(url: string | undefined): string | undefined {
  if (!url) return undefined;
  if (/^(chrome|chrome-extension|edge|about:(?!blank)|devtools|view-source):/i.test(url)) {
    return `browsermcp cannot control ${url.split(/[?#]/)[0]}: Chrome does not let extensions drive its own pages. Navigate the tab to a web page first.`;
  }
  if (/^https:\/\/(chromewebstore\.google\.com|chrome\.google\.com\/webstore)/i.test(url)) {
    return 'browsermcp cannot control the Chrome Web Store: Chrome does not let extensions drive it.';
  }
  return undefined;
}

/** puppeteer-core driving one tab through chrome.debugger: the same engine as the daemon's, one round trip away. */
export async function attachTab(tabId: number): Promise<Page> {
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
  const browser = await connect({ transport, defaultViewport: null });
  const [entryPage] = await browser.pages();
  if (!entryPage) throw new ToolError(`Tab ${tabId} has no page to drive.`);
  // The browser entry point declares its own copy of the Page class; it is the same class at run time.
  const page = entryPage as unknown as Page;
  browsers.set(page, browser);
  return page;
}

export async function detachTab(page: Page): Promise<void> {
  const browser = browsers.get(page);
  browsers.delete(page);
  await browser?.disconnect().catch(() => undefined);
}
