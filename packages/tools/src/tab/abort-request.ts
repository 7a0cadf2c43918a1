import type { ErrorCode, HTTPRequest, Page } from 'puppeteer-core';
import { cdp, requestIdOf } from '../engine/cdp.js';
import { delay } from '../engine/timing.js';

/** How long Chrome has to tell of a request's end once it was told to abort it. */
const ABORT_TOLD_MS = 500;

/**
 * Aborts a paused request, and makes sure puppeteer hears it ended. Chrome may have dropped the request already (a
 * navigation the page started just before another document committed): then the abort fails and no
 * `Network.loadingFailed` ever comes, and a puppeteer goto that took the request for its navigation waits for its
 * response forever, past its own timeout (seen: a tab held at about:blank for minutes). What Chrome left out is sent
 * through the page's session, as for a lost commit (lost-commit.ts).
 */
export async function abortRequest(page: Page, request: HTTPRequest, reason: ErrorCode): Promise<void> {
  await request.abort(reason).catch(() => undefined);
  await delay(ABORT_TOLD_MS);
  const requestId = requestIdOf(request);
  if (requestId === undefined || page.isClosed() || request.failure() !== null || request.response() !== null) return;
  const errorText = reason === 'blockedbyclient' ? 'net::ERR_BLOCKED_BY_CLIENT' : 'net::ERR_ABORTED';
  cdp(page).emit('Network.loadingFailed', {
    requestId,
    timestamp: 0,
    type: request.resourceType() === 'document' ? 'Document' : 'Other',
    errorText,
    canceled: true,
  });
}
