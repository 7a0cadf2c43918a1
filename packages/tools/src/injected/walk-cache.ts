import { styleFacts } from './style-facts.js';
import type { Item } from './yaml.js';

/**
 * The parts of the last walk that still hold: after an action, most of a big page is as it was, and walking it again
 * was most of a snapshot's cost (the Rust book: ~115 ms of a ~180 ms answer). What each element put into its
 * parent's run is kept and used again until something it may depend on changes:
 * - a mutation of an element (attribute, children, text) makes its own part and every part above it stale, and its
 *   whole subtree (a class restyles what is inside); where the sheets have sibling selectors, its later siblings too;
 * - where a change below can restyle what is above (`:has()`, container queries), a style sheet changes, the window
 *   is resized, or a state a rule shows things by (hover, focus, checked) changes, nothing is kept;
 * - what depends on other parts of the page or on layout (controls and their values, labels and elements named by
 *   them, grids in visual order, mirrored popup items, shadow trees, custom elements, frames) is never kept, nor are
 *   the elements around it (walk.ts decides, per element).
 * What this cannot see: a listener added to an element while nothing on the page changes around it, which a full
 * walk would read (the `same` answer of walk.ts has that limit too).
 */

/** What the walk of one element put into its parent's run. */
interface Part {
  items: Item[];
  /** The stamp of the walk that made it: it holds while nothing was marked after. */
  stamp: number;
  /** Whether it was walked inside an element showing the pointer cursor (its refs depend on it). */
  inPointer: boolean;
  /** The characters its ref lines count toward a budget (see walk.ts). */
  written: number;
}

const parts = new WeakMap<Element, Part>();
/** The stamp at which each changed node's subtree, and each node's later siblings, stopped holding. */
const subtreeChanged = new WeakMap<Node, number>();
const followersChanged = new WeakMap<Node, number>();
let stamp = 0;
/** Nothing made at or before this stamp holds. */
let allChangedAt = 0;

/** What changed since the last walk, kept as the nodes it happened to (bounded: past the cap, everything changed). */
const MAX_PENDING = 5_000;
const pending = { elements: new Set<Node>(), texts: new Set<Node>(), restyled: new Set<Node>(), state: false, everything: false };
let lastActive: Element | null = null;
let lastKey: string | undefined;

function full(): boolean {
  return pending.elements.size + pending.texts.size + pending.restyled.size > MAX_PENDING;
}

const STYLE_TAGS = new Set(['STYLE', 'LINK']);

/** Called by changes.ts with each batch of mutation records. */
export function noteMutations(records: MutationRecord[]): void {
  if (pending.everything) return;
  for (const r of records) {
    const target = r.target;
    if (r.type === 'characterData') {
      const parent = target.parentNode;
      if (parent && STYLE_TAGS.has((parent as Element).tagName)) pending.everything = true;
      else pending.texts.add(target);
    } else {
      if (STYLE_TAGS.has((target as Element).tagName)) pending.everything = true;
      pending.elements.add(target);
    }
  }
  if (full()) pending.everything = true;
}

/** The document was written anew: nothing of the last walk holds. */
export function noteEverything(): void {
  pending.everything = true;
}

/** Events that change what shows without a mutation: a state (focus, hover, input) or an element's own style (animations). */
export function noteEvent(type: string, target: EventTarget | null): void {
  if (pending.everything) return;
  if (type === 'resize') pending.everything = true;
  else if (type === 'toggle' || type === 'animationend' || type === 'transitionend') {
    if (target instanceof Node) pending.restyled.add(target);
  } else pending.state = true;
  if (full()) pending.everything = true;
}

/** A node above `n` in the tree the walk reads: its parent, or a shadow root's host. */
function above(n: Node): Node | null {
  const parent = n.parentNode;
  return parent instanceof ShadowRoot ? parent.host : parent;
}

/** `n` and everything above it: the parts holding what `n` shows. */
function dropPath(n: Node | null): void {
  for (; n; n = above(n)) if (n.nodeType === 1) parts.delete(n as Element);
}

/**
 * Takes what changed since the last walk and returns the stamp for this walk's parts. `records`: mutations not yet
 * delivered to the observer's callback; `controlsChanged`: a control the last walk showed holds another value or
 * state now (a script sets them with no event, and a page whose window is not focused gets no focus events either).
 */
export function startWalk(records: MutationRecord[], active: Element | null, controlsChanged: boolean): number {
  noteMutations(records);
  const facts = styleFacts();
  const mark = ++stamp;
  const changed = pending.elements.size + pending.texts.size + pending.restyled.size > 0;
  const state = pending.state || controlsChanged || active !== lastActive;
  if (pending.everything || facts.key !== lastKey || (state && facts.states) || (changed && facts.upward)) {
    allChangedAt = mark;
  } else {
    for (const el of pending.elements) {
      subtreeChanged.set(el, mark);
      if (facts.siblings) followersChanged.set(el, mark);
      dropPath(el);
    }
    for (const text of pending.texts) {
      const parent = text.parentNode;
      if (!parent) continue;
      // Text decides `:empty` and the like of its element: with such selectors, as if the element had changed.
      if (facts.siblings) {
        subtreeChanged.set(parent, mark);
        followersChanged.set(parent, mark);
      }
      dropPath(parent);
    }
    for (const el of pending.restyled) {
      subtreeChanged.set(el, mark);
      dropPath(el);
    }
    if (active !== lastActive) {
      dropPath(lastActive);
      dropPath(active);
    }
  }
  lastKey = facts.key;
  lastActive = active;
  pending.elements.clear();
  pending.texts.clear();
  pending.restyled.clear();
  pending.state = pending.everything = false;
  return ++stamp;
}

/** The stamp after which parts inside `el` hold, given the one for its parent (`since`). */
export function holdsAfter(el: Node, since: number): number {
  const at = subtreeChanged.get(el);
  return at !== undefined && at > since ? at : since;
}

/** The same for the siblings after `el`. */
export function followersHoldAfter(el: Node, since: number): number {
  const at = followersChanged.get(el);
  return at !== undefined && at > since ? at : since;
}

/** The stamp after which parts at `el` hold, read from every node above it (a walk that starts there). */
export function holdsAfterFrom(el: Element): number {
  let since = allChangedAt;
  for (let n: Node | null = el; n; n = above(n)) {
    since = holdsAfter(n, since);
    for (let s = n.previousSibling; s; s = s.previousSibling) since = followersHoldAfter(s, since);
  }
  return since;
}

/** The stamp of the last change to everything: where a walk from the top starts. */
export const everythingChangedAt = (): number => allChangedAt;

/** The part `el` put into its parent's run, if it still holds. */
export function keptPart(el: Element, since: number, inPointer: boolean): Part | undefined {
  const part = parts.get(el);
  return part && part.stamp > since && part.inPointer === inPointer ? part : undefined;
}

export function keepPart(el: Element, part: Part): void {
  parts.set(el, part);
}

/** Drops what `el` showed (its clickability changed with no mutation: the engine's listener marks, listeners.ts). */
export function changedWithoutMutation(el: Element): void {
  dropPath(el);
}
