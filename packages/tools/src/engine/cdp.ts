import type { CDPSession, Frame, HTTPRequest, Page } from 'puppeteer-core';

/**
 * The page's own CDP session. Puppeteer does not expose it publicly, but it is how the tools reach the few events
 * and calls puppeteer keeps to itself (the file chooser's input, an error page's unreachable URL); puppeteer-core is
 * pinned to 24.x.
 */
export function cdp(page: Page): CDPSession {
  return (page as unknown as { _client(): CDPSession })._client();
}

/** CDP's id of a request (for a navigation, the loader id of the document it brings): puppeteer keeps it undeclared. */
export const requestIdOf = (request: HTTPRequest): string | undefined => (request as unknown as { id?: string }).id;

/**
 * A frame's CDP session and the id of its main-world context, for a DevTools evaluation puppeteer does not offer
 * (one with the console's functions in scope: see in-page.ts). Undefined while the frame has no context yet, or if
 * puppeteer's internals change (pinned to 24.x): the caller then does without.
 */
export function frameContext(frame: Frame): { client: CDPSession; contextId: number } | undefined {
  const internal = frame as unknown as { client?: CDPSession; mainRealm?: () => { context?: { id?: unknown } } | undefined };
  const contextId = internal.mainRealm?.()?.context?.id;
  return internal.client && typeof contextId === 'number' ? { client: internal.client, contextId } : undefined;
}
