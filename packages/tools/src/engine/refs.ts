/**
 * Refs as the model reads and writes them: `[context:][f<frame>]e<n>` — `e12` on the page, `f1e3` in its first
 * iframe, `uk:e2` in the named context "uk". The one parser of refs: no other package reads them.
 */
export interface Ref {
  /** The named browser context the ref comes from; undefined for the session's default context. */
  context: string | undefined;
  /** The frame's number (`f1`), undefined for the main frame. */
  frame: number | undefined;
  /** The element's ref inside its document (`e12`). */
  element: string;
}

const REF = /^(?:([A-Za-z0-9_-]{1,32}):)?(?:f(\d+))?(e\d+)$/;

/** The parts of a ref, or undefined when `text` is not one (then it is a CSS selector). */
export function parseRef(text: string): Ref | undefined {
  const m = REF.exec(text);
  if (!m) return undefined;
  return { context: m[1], frame: m[2] === undefined ? undefined : Number(m[2]), element: m[3]! };
}

/** What is written before an element ref from this context and frame (`uk:f1`), '' for the main frame of the default context. */
export function refPrefix(context: string | undefined, frame: number | undefined): string {
  return `${context ? `${context}:` : ''}${frame === undefined ? '' : `f${frame}`}`;
}
