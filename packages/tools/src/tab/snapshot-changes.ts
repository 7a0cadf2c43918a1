import { diffArrays } from 'diff';

/**
 * What changed between the snapshot an agent was last shown and the page now, for an action's answer: the new and
 * changed lines, each under the lines of the elements it sits in, and the elements that are gone. An agent reads this
 * instead of the whole page again (a click on a small page answered ~2,800 characters, most of them what it had
 * just read). Refs do not change while the document stays, so a line the agent saw still names the same element.
 */

/** Past this many changed lines the diff is not worth its cost (or its reading): the whole snapshot goes instead. */
const MOST_EDITS = 2_000;
/** Gone elements listed by name; more are counted. */
const GONE_LISTED = 8;
/**
 * The changes must be well under the whole snapshot to be worth sending instead of it: read on their own, changes
 * that rewrite most of the page (a calendar turned to the next month, its cells reused) leave the agent reading the
 * rest from what it saw before, which no longer holds.
 */
const WORTH = 0.6;
/**
 * Changes that only add to the page (a popup opening: a line or two of what was there changes, the rest is new) are
 * worth sending up to nearly the page's length: all the agent saw before still holds.
 */
const ADDED_WORTH = 0.9;
/** Lines of the old snapshot that may change (a field marked [active]) for changes to count as only adding. */
const ADDED_REWRITES = 2;

const indentOf = (line: string): number => line.length - line.trimStart().length;
const refOf = (line: string): string | undefined => /\[ref=([^\]]+)\]/.exec(line)?.[1];

export interface SnapshotChanges {
  /** The changed lines with their ancestors, in page order ('' when nothing changed). */
  lines: string;
  /** Lines of elements that are gone (their refs no longer name anything), and how many more there were. */
  gone: string[];
  goneMore: number;
}

/**
 * The changes from `before` to `after` (snapshot texts), or undefined when the whole snapshot says it better: too
 * many changes, or changes nearly as long as the page.
 */
export function snapshotChanges(before: string, after: string): SnapshotChanges | undefined {
  if (before === after) return { lines: '', gone: [], goneMore: 0 };
  const a = before.split('\n');
  const b = after.split('\n');
  const parts = diffArrays(a, b, { maxEditLength: MOST_EDITS });
  if (!parts) return undefined;
  const changed = new Set<number>();
  const still = new Set(b.map(refOf).filter(Boolean));
  // Gone: elements whose ref the page no longer shows, the outermost of each removed run (what was inside goes too).
  const gone: string[] = [];
  let at = 0;
  let rewritten = 0;
  for (const part of parts) {
    if (part.added) for (let i = 0; i < part.value.length; i++) changed.add(at + i);
    if (part.removed) {
      rewritten += part.value.length;
      let outer = Infinity;
      for (const line of part.value) {
        const ref = refOf(line);
        if (ref === undefined || still.has(ref) || indentOf(line) > outer) continue;
        outer = indentOf(line);
        gone.push(line.trim());
      }
    } else at += part.value.length;
  }
  // Each changed line comes with the lines of the elements it sits in (fewer spaces, above it), once.
  const shown = new Set<number>(changed);
  for (const i of changed) {
    let indent = indentOf(b[i]!);
    for (let j = i - 1; j >= 0 && indent > 0; j--) {
      const k = indentOf(b[j]!);
      if (k < indent) {
        if (shown.has(j) && !changed.has(j)) break;
        shown.add(j);
        indent = k;
      }
    }
  }
  const lines = [...shown].sort((x, y) => x - y).map((i) => b[i]!);
  const changes = { lines: lines.join('\n'), gone: gone.slice(0, GONE_LISTED), goneMore: Math.max(0, gone.length - GONE_LISTED) };
  const size = changes.lines.length + changes.gone.join('\n').length;
  const adds = gone.length === 0 && rewritten <= ADDED_REWRITES;
  return size < after.length * (adds ? ADDED_WORTH : WORTH) ? changes : undefined;
}

/** The answer's section when the page shows what the agent was last shown. */
export const UNCHANGED = '### Snapshot\nUnchanged since the last snapshot.';

/** The answer's section for `changes`. */
export function renderChanges(changes: SnapshotChanges): string {
  if (!changes.lines && !changes.gone.length) return UNCHANGED;
  const out = ['### Snapshot changes (the rest of the page is as last shown)'];
  if (changes.lines) out.push('```yaml', changes.lines, '```');
  if (changes.gone.length) {
    out.push(`Gone: ${changes.gone.map((l) => `\`${l}\``).join(', ')}${changes.goneMore ? ` and ${changes.goneMore} more` : ''}.`);
  }
  return out.join('\n');
}
