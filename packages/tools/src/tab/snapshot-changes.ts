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
/** Each line's parent: the nearest line above it with fewer spaces (-1 at the top). */
function parentsOf(lines: string[]): number[] {
  const parent: number[] = [];
  const open: number[] = [];
  lines.forEach((line, i) => {
    while (open.length && indentOf(lines[open[open.length - 1]!]!) >= indentOf(line)) open.pop();
    parent.push(open.length ? open[open.length - 1]! : -1);
    open.push(i);
  });
  return parent;
}

/**
 * The lines (trimmed) of the elements `isGone` says are gone, the outermost of each: what sits under a gone element
 * goes with it and is not named again; one under an element that stays is.
 */
function outermostGone(lines: string[], isGone: (ref: string) => boolean): string[] {
  const out: string[] = [];
  let outer = Infinity;
  for (const line of lines) {
    const indent = indentOf(line);
    if (indent <= outer) outer = Infinity;
    if (outer !== Infinity) continue;
    const ref = refOf(line);
    if (ref === undefined || !isGone(ref)) continue;
    outer = indent;
    out.push(line.trim());
  }
  return out;
}

/** A line that says where what is under it sits: it has a ref or a name. */
const SAYS_WHERE = /\[ref=|^\s*- \S+ "/;
const refOf = (line: string): string | undefined => /\[ref=([^\]]+)\]/.exec(line)?.[1];

export interface SnapshotChanges {
  /**
   * What they are changes from: the snapshot last shown, or the one shown before it, where the last was the page
   * behind a popup hidden (a listbox or menu that hides the rest from assistive technology, as Headless UI and MUI
   * do): when the popup closes the page is back as it was before, and that is the smaller news.
   */
  since: 'last' | 'before-last';
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
  if (before === after) return { since: 'last', lines: '', gone: [], goneMore: 0 };
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
      gone.push(...outermostGone(part.value, (ref) => !still.has(ref)));
    } else at += part.value.length;
  }
  // Each changed line comes with the lines of the elements it sits in, once: those that say where (a ref or a name:
  // `listbox "City"`, `dialog "Reset?"`); a `- main:` or `- paragraph:` around it says little.
  const parent = parentsOf(b);
  const shown = new Set<number>(changed);
  const walked = new Set<number>();
  for (const i of changed) {
    for (let j = parent[i]!; j >= 0 && !walked.has(j); j = parent[j]!) {
      walked.add(j);
      if (SAYS_WHERE.test(b[j]!)) shown.add(j);
    }
  }
  // Indented by the shown lines they sit in, not by the ones left out (page order: those are placed first).
  const depth = new Map<number, number>();
  const lines = [...shown]
    .sort((x, y) => x - y)
    .map((i) => {
      let j = parent[i]!;
      while (j >= 0 && !depth.has(j)) j = parent[j]!;
      const d = j >= 0 ? depth.get(j)! + 1 : 0;
      depth.set(i, d);
      return `${'  '.repeat(d)}${b[i]!.trimStart()}`;
    });
  const changes: SnapshotChanges = {
    since: 'last',
    lines: lines.join('\n'),
    gone: gone.slice(0, GONE_LISTED),
    goneMore: Math.max(0, gone.length - GONE_LISTED),
  };
  const size = changes.lines.length + changes.gone.join('\n').length;
  const adds = gone.length === 0 && rewritten <= ADDED_REWRITES;
  return size < after.length * (adds ? ADDED_WORTH : WORTH) ? changes : undefined;
}

/**
 * The changes from `older` (the snapshot shown before `last`) to `after`, where those from `last` are not worth
 * sending: the elements of `last` that are gone are named too, so that nothing the agent last saw is left standing.
 */
export function changesSinceBeforeLast(older: string, last: string, after: string): SnapshotChanges | undefined {
  const changes = snapshotChanges(older, after);
  if (!changes) return undefined;
  const still = new Set(after.split('\n').map(refOf).filter(Boolean));
  const known = new Set(older.split('\n').map(refOf).filter(Boolean));
  // Those of `last` gone now that were not in `older` (named there).
  const extra = outermostGone(last.split('\n'), (ref) => !still.has(ref) && !known.has(ref));
  const all = [...changes.gone, ...extra];
  return { since: 'before-last', lines: changes.lines, gone: all.slice(0, GONE_LISTED), goneMore: changes.goneMore + Math.max(0, all.length - GONE_LISTED) };
}

/** The answer's section when the page shows what the agent was last shown. */
export const UNCHANGED = '### Snapshot\nUnchanged since the last snapshot.';

/**
 * A gone element as the list of them names it: its role, name and ref, without the states it had (`- listbox "City"
 * [active] [ref=e9]:` reads `listbox "City" [ref=e9]`).
 */
function goneName(line: string): string {
  const m = /^- (\S+)( "(?:[^"\\]|\\.)*")?(.*)$/.exec(line);
  if (!m) return line;
  const ref = / \[ref=[^\]]+\]/.exec(m[3]!)?.[0] ?? '';
  return `${m[1]}${m[2] ?? ''}${ref}`;
}

/** The answer's section for `changes`. */
export function renderChanges(changes: SnapshotChanges): string {
  if (!changes.lines && !changes.gone.length && changes.since === 'last') return UNCHANGED;
  const out = [
    changes.since === 'last'
      ? '### Snapshot changes (the rest as last shown)'
      : '### Snapshot changes since the snapshot before the last one (the rest as shown there)',
  ];
  if (changes.lines) out.push('```yaml', changes.lines, '```');
  if (changes.gone.length) {
    out.push(`Gone: ${changes.gone.map(goneName).join(', ')}${changes.goneMore ? ` and ${changes.goneMore} more` : ''}.`);
  }
  return out.join('\n');
}
