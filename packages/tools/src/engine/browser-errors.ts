/**
 * Puppeteer's errors, sorted in one place: by type where puppeteer gives one (`ConnectionClosedError`, and
 * `TargetCloseError`, which it does not export), known by the name every puppeteer error carries (its class's): the
 * engine also runs in the extension's worker, where importing puppeteer's Node entry for `instanceof` is not an option.
 * By Chrome's own words where it gives no type (a frame detached, a context destroyed, a `net::` code, an unknown key).
 */
const GONE_TYPES = new Set(['ConnectionClosedError', 'TargetCloseError']);

/** The page, its frame or the browser went away under the call (closed, navigated, crashed, disconnected). */
export function pageWentAway(err: unknown): boolean {
  if (err instanceof Error && GONE_TYPES.has(err.name)) return true;
  // Plain errors of puppeteer's with no type of their own, and the same words where a wrapper passed them on.
  return err instanceof Error && /Target closed|Session closed|detached Frame|Execution context was destroyed/i.test(err.message);
}

/** The `net::ERR_…` code a navigation failed with (page.goto), or undefined for any other failure. */
export function navigationErrorCode(err: unknown): string | undefined {
  return err instanceof Error ? /^net::(ERR_[A-Z_]+)/.exec(err.message)?.[1] : undefined;
}

/** Whether a key press failed for a key name puppeteer does not know. */
export function unknownKey(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('Unknown key: ');
}

/** Whether a navigation was cut off by another one, or by a download (page.goto's `net::ERR_ABORTED`, "interrupted"). */
export function navigationCutOff(err: unknown): boolean {
  return err instanceof Error && /net::ERR_ABORTED|interrupted/i.test(err.message);
}

/** Whether a wait ran out of time (puppeteer's TimeoutError, known by its name as the others). */
export function timedOut(err: unknown): boolean {
  return err instanceof Error && err.name === 'TimeoutError';
}
