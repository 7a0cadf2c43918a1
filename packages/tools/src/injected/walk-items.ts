import { collapse, isBlank, isBlock } from './util.js';
import type { Item } from './yaml.js';

/** What the snapshot walk (walk.ts) writes for what: roles it leaves out or folds, and the runs of text it builds. */

export const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE']);
// Roles whose text children repeat the name; rendering them again would only cost characters.
export const LEAF_BY_NAME = new Set([
  'button',
  'link',
  'heading',
  'option',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
  'switch',
  'checkbox',
  'radio',
  'cell',
  'gridcell',
  'columnheader',
  'rowheader',
]);
/** Roles that only hold content: without any, and without a ref or a name, they are left out. */
export const HOLDS_ONLY = new Set([
  'paragraph',
  'log',
  'status',
  'alert',
  'list',
  'group',
  'blockquote',
  'code',
  'main',
  'navigation',
  'region',
  'article',
  'complementary',
  'banner',
  'contentinfo',
  'form',
  'note',
  'marquee',
  'timer',
  'caption',
]);

export const CONTAINER_CELLS = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);
export const WRAPPERS = new Set(['cell', 'gridcell', 'listitem']);

/** A content-editable field with no text in it (an editor showing its placeholder). */
export function isEmptyEditor(el: Element): boolean {
  return (el as HTMLElement).isContentEditable && !collapse(el.textContent ?? '');
}

/** The nodes a slot shows: what is assigned to it, else its own fallback content. */
export function slotted(el: HTMLSlotElement): Node[] | undefined {
  const assigned = el.assignedNodes({ flatten: true });
  return assigned.length ? assigned : undefined;
}

export function boxOf(el: Element, offset = { x: 0, y: 0 }): string {
  const r = el.getBoundingClientRect();
  return `${Math.round(r.x + offset.x)},${Math.round(r.y + offset.y)},${Math.round(r.width)},${Math.round(r.height)}`;
}

/** Adds text to the run that ends `out`, or starts a run. */
export function addText(out: Item[], text: string): void {
  const last = out.length - 1;
  if (last >= 0 && typeof out[last] === 'string') out[last] = (out[last] as string) + text;
  else out.push(text);
}

/** Writes what `el` shows (through `add`) into the run it sits in, set apart when `el` is block-level. */
export function flatten(el: Element, out: Item[], add: () => void, style?: CSSStyleDeclaration): void {
  const block = isBlock(el, style);
  if (block) addText(out, ' ');
  add();
  if (block) addText(out, ' ');
}

/** Drops a run of whitespace alone at either end: what sits between a node's edge and its first element says nothing. */
export function trimEnds(items: Item[]): void {
  if (typeof items[items.length - 1] === 'string' && isBlank(items[items.length - 1] as string)) items.pop();
  if (typeof items[0] === 'string' && isBlank(items[0] as string)) items.shift();
}
