import type { CDPSession, Page } from 'puppeteer-core';

/**
 * The page's own CDP session. Puppeteer does not expose it publicly, but it is how the tools reach the few events
 * and calls puppeteer keeps to itself (the file chooser's input, an error page's unreachable URL); puppeteer-core is
 * pinned to 24.x.
 */
export function cdp(page: Page): CDPSession {
  return (page as unknown as { _client(): CDPSession })._client();
}
