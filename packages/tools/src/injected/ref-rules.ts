import { handlesPress, type HoverCheck } from './listeners.js';
import { refFor } from './refs.js';
import type { Item } from './yaml.js';

/**
 * Who gets a ref in a snapshot, and why: the roles a person acts on, what a page makes clickable without one (a
 * handler, a pointer cursor, a focus stop, a CSS hover rule), the containers worth targeting; and how refs are named
 * once the walk has decided (walk.ts uses these).
 */

// Roles a person acts on: these always get a ref.
export const INTERACTIVE = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'option',
  'slider',
  'spinbutton',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
  'iframe',
]);
// Containers worth targeting with `browser_snapshot {target}` or `browser_get_text`.
export const TARGETABLE = new Set([
  'heading',
  'table',
  'list',
  'form',
  'dialog',
  'alertdialog',
  'navigation',
  'main',
  'region',
  'tablist',
  'tabpanel',
  'menu',
  'menubar',
  'tree',
  'grid',
  'img',
  'article',
  'banner',
  'contentinfo',
  'complementary',
]);
/** A node's ref before it is named (numberRefs). */
export const UNNUMBERED = '?';
/** About the characters a ref's name takes, for the size budget counted while walking. */
export const REF_CHARS = 4;

/** Names the refs of `items` in document order (parents before children); an element keeps a name it was given. */
export function numberRefs(items: Item[], seed: number): void {
  for (const item of items) {
    if (typeof item === 'string') continue;
    if (item.ref === UNNUMBERED) item.ref = refFor(item.el!, seed);
    numberRefs(item.children, seed);
  }
}

/** Elements inside a container from which it gets a ref of its own (see walk.ts's build). */
export const WORTH_TARGETING = 25;

/** How many elements `items` show, all the way down. */
export function sizeOf(items: Item[]): number {
  let n = 0;
  for (const item of items) if (typeof item !== 'string') n += 1 + item.size;
  return n;
}

/** The word that says why an element without an interactive role has a ref (a targetable role needs none but the cursor). */
export const MARKS: Record<Exclude<Clickable, false>, string> = {
  pointer: ' [cursor=pointer]',
  handler: ' [clickable]',
  focusable: '',
  hover: ' [hoverable]',
};
/**
 * Elements without an interactive role that a person can still act on: click handlers (an attribute, a framework's),
 * a pointer cursor where the click target starts (not every element inside it, which inherits the cursor: one ref
 * where one click target is meant, as @playwright/mcp marks them), and focus stops.
 */
export function isClickable(el: Element, role: string, bare: boolean, pointer: boolean, inPointer: boolean, revealsOnHover: HoverCheck): Clickable {
  // Interactive roles get a ref anyway; any other element (a clickable row, card, cell or list item) needs one. A
  // label acts on its control, which has its own.
  if (INTERACTIVE.has(role) || (el instanceof HTMLLabelElement && el.control !== null)) return false;
  if (pointer && !inPointer) return 'pointer';
  // A handler with no cursor to show it: a ref, and a word for why where the role gets none of its own.
  if (!inPointer && handlesPress(el)) return 'handler';
  if (!bare) {
    if (el.hasAttribute('onclick')) return 'pointer';
    const tabindex = el.getAttribute('tabindex');
    if (tabindex !== null && Number(tabindex) >= 0 && !isSentinel(el)) return 'focusable';
  }
  return revealsOnHover(el) ? 'hover' : false;
}

/** An empty focus stop of no size and no name (a dialog's focus-trap sentinel): nothing a person sees or clicks. */
function isSentinel(el: Element): boolean {
  if (el.firstChild !== null || el.hasAttribute('aria-label')) return false;
  const box = el.getBoundingClientRect();
  return box.width === 0 || box.height === 0;
}

/**
 * Why an element without an interactive role gets a ref: a pointer cursor, a handler for a press, a focus stop, a
 * CSS rule that reveals something while it is hovered.
 */
export type Clickable = 'pointer' | 'handler' | 'focusable' | 'hover' | false;

/** Roles of popup items that a library mirrors for screen readers into a box of no size (Ant Design's select). */
const MIRRORED = new Set(['option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem']);

/**
 * Whether `el` is such a mirror: an item of no size anywhere, which nothing can click. It is shown without a ref, so
 * that the agent acts on the item the person sees (a native <option> draws inside its select: not one).
 */
export function mirrored(el: Element, role: string): boolean {
  if (!MIRRORED.has(role) || el instanceof HTMLOptionElement) return false;
  const box = el.getBoundingClientRect();
  if (box.width > 0 && box.height > 0) return false;
  return !Array.from(el.getClientRects()).some((r) => r.width > 0 && r.height > 0);
}

/** Whether an element of this computed style shows the pointer cursor and takes clicks (`pointer-events: none` passes them on). */
export function showsPointer(style: CSSStyleDeclaration): boolean {
  return style.cursor === 'pointer' && style.pointerEvents !== 'none';
}
