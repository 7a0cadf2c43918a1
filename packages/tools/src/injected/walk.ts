import { changeCount, documentId, sheetsKey, watchShadowRoot } from './changes.js';
import { attrName, namesItsOwner } from './names.js';
import { hoverCheck, listenersMarked } from './listeners.js';
import { elementForRef, nextRef } from './refs.js';
import {
  INTERACTIVE,
  isClickable,
  MARKS,
  mirrored,
  numberRefs,
  REF_CHARS,
  showsPointer,
  sizeOf,
  TARGETABLE,
  UNNUMBERED,
  WORTH_TARGETING,
  type Clickable,
} from './ref-rules.js';
import { NAME_FROM_CONTENT, roleOf } from './roles.js';
import { generatedName } from './pseudo-content.js';
import { parcel, type Parcel } from './parcel.js';
import { props, shownValue } from './states.js';
import { clip, collapse, isBlank, isBlock } from './util.js';
import { shownInside } from './visibility.js';
import { foldedCode, renderYaml, type Item, type TreeNode } from './yaml.js';
import { inVisualOrder, ROW_HOLDERS } from './row-order.js';
import { pruneUrls } from './link-urls.js';

/**
 * The snapshot walk. Why an in-page walker rather than `Accessibility.getFullAXTree`: on a 3,000-row table the CDP
 * tree took 4.2 s, this walker well under 300 ms (docs/architecture.md, "In-page code").
 */

export interface WalkOptions {
  /** First ref number to hand out if this document has no walker state yet (keeps refs unique across documents). */
  seed: number;
  /** Render only the subtree of this element (a ref or CSS selector already resolved by `targetRef`). */
  targetRef?: string;
  /** Maximum depth of the rendered tree; deeper nodes are summarized. */
  depth?: number;
  /** Ref prefix for this frame (`f1` for the first iframe), empty for the main frame. */
  prefix: string;
  /** Write `[url=…]` on every link, not only where the url adds to the name (for `browser_find`). */
  allUrls?: boolean;
  /**
   * Stop walking once the snapshot is sure to pass this many characters (it is cut there anyway): on a big page an
   * action's answer costs a walk of what it shows, not of the whole page. Ignored with `depth`.
   */
  budget?: number;
  /** Write each element's bounding box, `[box=x,y,width,height]` in CSS pixels of the page's viewport. */
  boxes?: boolean;
  /** Where this frame's viewport sits in the page's (for boxes in an iframe). */
  boxOffset?: { x: number; y: number };
  /** The token of the caller's last result: when the page has not changed since, the walk answers `same` instead. */
  reuse?: string;
}

export interface WalkResult {
  /**
   * The snapshot's lines joined by newlines (one string crosses to the host far cheaper than thousands); empty from
   * the page when `more` says where its parts are parked (see parcel.ts), until the host has fetched them.
   */
  text: string;
  more?: Parcel['more'];
  /** Ref (without prefix) of each iframe element, in document order, to splice child frames under. */
  iframeRefs: string[];
  /** Next free ref number in this document. */
  next: number;
  /** Set when `targetRef` did not resolve. */
  missing?: boolean;
  /** The walk stopped at the budget: the page has more than these lines show. */
  stopped?: boolean;
  /** Names this result for a later `reuse` (absent for boxes, which move with scrolling and layout). */
  token?: string;
  /** Nothing changed since the result `reuse` named: use it again (text and iframeRefs are empty). */
  same?: boolean;
  /** This document sees listeners added by script only through the engine's marks (see listeners.ts). */
  listenersMarked?: boolean;
}

/** What the last walk showed, to tell whether it still holds. */
interface LastWalk {
  token: string;
  active: Element | null;
  /** The form controls it showed and their state then: a script can set a value without any event. */
  controls: Array<{ el: Element; role: string; bare: boolean; state: string }>;
  /** The style sheets then: a rule added through the CSSOM changes no DOM. */
  sheets: string;
}
let last: LastWalk | undefined;
/** How many walks ran and how many were answered `same`: for tests and the benchmark. */
const stats = { walks: 0, reused: 0 };
export const walkStats = (): { walks: number; reused: number } => ({ ...stats });

const CONTROL_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'OPTION']);

function controlState(el: Element, role: string, bare: boolean, active: Element | null): string {
  return `${props(el, role, bare, active)}|${shownValue(el, role) ?? ''}`;
}

/** Whether the last walk still shows the page as it is: same options, no change counted, controls as they were. */
function stillHolds(token: string, active: Element | null, sheets: string): boolean {
  if (!last || last.token !== token || last.active !== active || last.sheets !== sheets) return false;
  return last.controls.every((c) => c.el.isConnected && controlState(c.el, c.role, c.bare, active) === c.state);
}

export interface FindMatch {
  line: string;
  context: string;
}

const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE']);
// Roles whose text children repeat the name; rendering them again would only cost characters.
const LEAF_BY_NAME = new Set([
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
const HOLDS_ONLY = new Set([
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

const CONTAINER_CELLS = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);
const WRAPPERS = new Set(['cell', 'gridcell', 'listitem']);

/** A content-editable field with no text in it (an editor showing its placeholder). */
function isEmptyEditor(el: Element): boolean {
  return (el as HTMLElement).isContentEditable && !collapse(el.textContent ?? '');
}

/** The nodes a slot shows: what is assigned to it, else its own fallback content. */
function slotted(el: HTMLSlotElement): Node[] | undefined {
  const assigned = el.assignedNodes({ flatten: true });
  return assigned.length ? assigned : undefined;
}

function boxOf(el: Element, offset = { x: 0, y: 0 }): string {
  const r = el.getBoundingClientRect();
  return `${Math.round(r.x + offset.x)},${Math.round(r.y + offset.y)},${Math.round(r.width)},${Math.round(r.height)}`;
}

/** Adds text to the run that ends `out`, or starts a run. */
function addText(out: Item[], text: string): void {
  const last = out.length - 1;
  if (last >= 0 && typeof out[last] === 'string') out[last] = (out[last] as string) + text;
  else out.push(text);
}

/** Writes what `el` shows (through `add`) into the run it sits in, set apart when `el` is block-level. */
function flatten(el: Element, out: Item[], add: () => void, style?: CSSStyleDeclaration): void {
  const block = isBlock(el, style);
  if (block) addText(out, ' ');
  add();
  if (block) addText(out, ' ');
}

/** Drops a run of whitespace alone at either end: what sits between a node's edge and its first element says nothing. */
function trimEnds(items: Item[]): void {
  if (typeof items[items.length - 1] === 'string' && isBlank(items[items.length - 1] as string)) items.pop();
  if (typeof items[0] === 'string' && isBlank(items[0] as string)) items.shift();
}

/** Walks the document (or one element) and renders the ARIA-like YAML snapshot with refs. */
export function walkPage(opts: WalkOptions): WalkResult {
  // The focused element does not move while the walk runs; the body is focused when nothing is.
  const active = document.activeElement === document.body ? null : document.activeElement;
  const { prefix, targetRef, depth, budget: wanted, allUrls } = opts;
  const token = opts.boxes ? undefined : `${documentId}:${changeCount()}:${JSON.stringify([prefix, targetRef, depth, wanted, allUrls])}`;
  // Read once: the walk changes no style sheet, so they are as it leaves them too.
  const sheets = token ? sheetsKey() : '';
  if (token && opts.reuse === token && stillHolds(token, active, sheets)) {
    stats.reused++;
    return { text: '', iframeRefs: [], next: nextRef(opts.seed), token, same: true };
  }
  const controls: LastWalk['controls'] = [];
  stats.walks++;

  // A lower bound of the rendered size: only lines with a ref count, as they are always written (never flattened,
  // their names never dropped), so stopping here never leaves the snapshot shorter than the budget.
  const budget = opts.depth === undefined ? (opts.budget ?? Infinity) : Infinity;
  let written = 0;
  let stopped = false;

  // Collects the items for `el`'s children into `out`, flattening elements that carry no role of their own.
  // `textShown` is false inside `visibility: hidden`: its text is not on screen, though an element below may be.
  function collect(el: Element, out: Item[], textShown = true): void {
    const assigned = el.tagName === 'SLOT' ? slotted(el as HTMLSlotElement) : undefined;
    if (assigned) {
      for (let i = 0; i < assigned.length && !stopped; i++) take(assigned[i]!, out, textShown);
      return;
    }
    // Sibling links rather than childNodes: a NodeList read by index was a tenth of a big page's walk.
    if (el.shadowRoot) watchShadowRoot(el.shadowRoot);
    for (let n = (el.shadowRoot ?? el).firstChild; n && !stopped; n = n.nextSibling) take(n, out, textShown);
  }

  // Text goes in as the page has it, runs of it joined, and is folded once per run when written: text runs on across
  // inline elements ("<em>this</em>, that" reads "this, that"), and a block-level element keeps words apart.
  function take(n: Node, out: Item[], textShown: boolean): void {
    if (n.nodeType === 3) {
      if (textShown) addText(out, n.nodeValue!);
    } else if (n.nodeType === 1) {
      visit(n as Element, out);
    }
  }

  const revealsOnHover = hoverCheck();

  /** Whether the element being walked sits inside one that shows the pointer cursor. */
  let inPointer = false;

  function visit(el: Element, out: Item[]): void {
    const tag = el.tagName;
    if (SKIP.has(tag)) return;
    const bare = !el.hasAttributes();
    if (!bare && el.getAttribute('aria-hidden') === 'true') return;
    const isSlot = tag === 'SLOT';
    // One style check in the common case; the rarer hidden cases decide whether children can still show.
    if (!isSlot && !el.checkVisibility({ visibilityProperty: true })) {
      const inside = shownInside(el);
      if (inside !== 'nothing') flatten(el, out, () => collect(el, out, inside === 'all'));
      return;
    }
    let role = roleOf(el, bare);
    // The cursor is inherited: an element inside a click target shows it too, and is not a target of its own.
    const outer = inPointer;
    // An interactive element is its own click target (its ref is given anyway): what is inside it is not another one,
    // and its style need not be read (a big table's links and inputs are most of its elements).
    // One computed style serves the cursor and, for an element folded into its parent's text, its display.
    const style = INTERACTIVE.has(role) || isSlot ? undefined : getComputedStyle(el);
    const pointer = style ? showsPointer(style) : INTERACTIVE.has(role) || outer;
    let clickable = isClickable(el, role, bare, pointer, outer, revealsOnHover);
    // An <a> without href that handles a press is a link, as Chrome exposes it (not words folded into a paragraph).
    if (tag === 'A' && role === 'generic' && (clickable === 'pointer' || clickable === 'handler')) {
      role = 'link';
      clickable = false;
    }
    inPointer = pointer;
    try {
      if ((role === 'generic' || role === 'presentation' || role === 'none') && !clickable) {
        if (namesItsOwner(el)) {
          // Its text is already the name of the control or group it labels: keep only the elements inside.
          const inner: Item[] = [];
          collect(el, inner);
          flatten(
            el,
            out,
            () => {
              for (const item of inner) if (typeof item !== 'string') out.push(item);
            },
            style,
          );
        } else {
          flatten(el, out, () => collect(el, out), style);
        }
        return;
      }
      const node = build(el, role, clickable, bare);
      // Code in a line of text (not a block of it) reads inline, in backticks (see yaml.ts).
      if (role === 'code' && !isBlock(el, style) && el.parentElement?.tagName !== 'PRE') node.inline = true;
      // A wrapper that takes the click for the one control inside it (a slider's rail, a switch's label, a picker's
      // frame) is one target with it: the control's ref alone, not a second one around it.
      if (node.role === 'generic' && clickable && clickable !== 'focusable' && wrapsOneControl(node)) flatten(el, out, () => out.push(...node.children), style);
      else place(node, out);
    } finally {
      inPointer = outer;
    }
  }

  /** Whether `node` holds one control (a ref'd element other than a container) and no text but that control's words. */
  function wrapsOneControl(node: TreeNode): boolean {
    let control: TreeNode | undefined;
    let text = '';
    for (const c of node.children) {
      if (typeof c === 'string') text += c;
      else if (c.ref && !TARGETABLE.has(c.role)) {
        if (control) return false;
        control = c;
      }
    }
    const words = collapse(text);
    return control !== undefined && (words === '' || words === control.name || words === control.value);
  }

  function place(node: TreeNode, out: Item[]): void {
    // An empty live region or paragraph (a chat's message list before any message, an editor's empty line) shows
    // nothing and takes no action: a line of it would only cost characters.
    if (HOLDS_ONLY.has(node.role) && !node.ref && !node.name && !node.props && node.value === undefined && !node.children.length) return;
    // A cell or list item that only wraps one element says nothing the element does not: show the element.
    // (This keeps big tables within budget: a 3,000-row table shrinks by about a fifth.)
    if (WRAPPERS.has(node.role) && !node.ref && node.children.length === 1 && typeof node.children[0] !== 'string' && !node.ownName) {
      out.push(node.children[0]!);
      return;
    }
    out.push(node);
  }

  // Text of a run of items, as it reads: a node's own text is worked out once, when first asked for (most never
  // are), and set apart from its neighbours only when its element is block-level.
  function textOf(items: Item[]): string {
    let text = '';
    for (const c of items) {
      if (typeof c === 'string') {
        text += c;
        continue;
      }
      const t = (c.text ??= textOf(c.children) || c.name);
      if (t) text += c.el && isBlock(c.el) ? ` ${t} ` : t;
    }
    return collapse(text);
  }

  function build(el: Element, role: string, clickable: Clickable, bare: boolean): TreeNode {
    // Which elements get a ref is decided here; their names are handed out after the walk, in document order
    // (numberRefs), as a container's is decided only once its content is known.
    const container = TARGETABLE.has(role) && role !== 'img' && !clickable;
    let ref = (INTERACTIVE.has(role) && !mirrored(el, role)) || clickable || role === 'img' ? UNNUMBERED : undefined;
    const children: Item[] = [];
    if (role !== 'iframe' && !(el instanceof HTMLSelectElement && role === 'combobox') && el.tagName !== 'TEXTAREA') {
      collect(el, children);
      trimEnds(children);
      if (ROW_HOLDERS.has(role)) inVisualOrder(children);
    }
    const labelled = attrName(el, role, bare);
    let name = labelled;
    let kids = children;
    // Cells and headers shown with their children would only repeat them in the name.
    const fromContent = NAME_FROM_CONTENT.has(role) && role !== 'row' && (!CONTAINER_CELLS.has(role) || kids.every((c) => typeof c === 'string'));
    if (!name && fromContent) name = textOf(children);
    // Generated content counts as content (accname 2F.ii): read only where nothing else names the element. An empty
    // rich-text editor's placeholder is its only label.
    if (!name && (fromContent || (role === 'textbox' && isEmptyEditor(el)))) name = generatedName(el, role === 'textbox');
    // The title is the last resort of the name (accname 2I): a day cell reads "15", as a person sees it, not its title.
    const title = name || bare ? '' : collapse(el.getAttribute('title') ?? '');
    if (!name) name = title;
    const own = labelled || title;
    const size = sizeOf(children);
    // A container is worth a ref where it is named by the page (a drop zone, a dialog), where reading it alone saves
    // reading (browser_snapshot or browser_get_text with its ref), or where a depth limit cuts it; a heading's, or a
    // short list's, would only cost characters.
    const worth = (own !== '' && role !== 'heading') || size >= WORTH_TARGETING || (opts.depth !== undefined && size > 0);
    if (container && worth) ref = UNNUMBERED;
    // A name repeated by the only text inside adds nothing.
    if (LEAF_BY_NAME.has(role) && kids.every((c) => typeof c === 'string' || foldedCode(c) !== undefined)) kids = [];
    let value = shownValue(el, role);
    // An editor holding only text shows it once, as its value, its lines apart as they are laid out (its textContent
    // runs them together: "42;console.log").
    if (value !== undefined && role === 'textbox' && (el as HTMLElement).isContentEditable && kids.every((c) => typeof c === 'string')) {
      value = textOf(kids) || value;
      kids = [];
    }
    const node: TreeNode = {
      size,
      role: role === 'presentation' || role === 'none' ? 'generic' : role,
      name: clip(name, role === 'heading' || role === 'link' || role === 'button' ? 200 : 120),
      ref,
      props: props(el, role, bare, active) + (clickable === 'pointer' || (clickable && !TARGETABLE.has(role)) ? MARKS[clickable] : ''),
      value,
      url: role === 'link' && !bare ? (el.getAttribute('href') ?? undefined) : undefined,
      children: kids,
      text: name && NAME_FROM_CONTENT.has(role) ? name : undefined,
      ownName: own !== '',
      box: opts.boxes ? boxOf(el, opts.boxOffset) : undefined,
      el,
    };
    if (role === 'iframe' && ref) iframes.push(node);
    if (CONTROL_TAGS.has(el.tagName) || (el as HTMLElement).isContentEditable) controls.push({ el, role, bare, state: controlState(el, role, bare, active) });
    if (ref) {
      written += node.role.length + node.name.length + node.props.length + opts.prefix.length + REF_CHARS + 10;
      if (written > budget) stopped = true;
    }
    if (role === 'link') links.push(node);
    return node;
  }

  const iframes: TreeNode[] = [];
  const links: TreeNode[] = [];

  let root: Element = document.body ?? document.documentElement;
  const items: Item[] = [];
  if (opts.targetRef) {
    const target = elementForRef(opts.targetRef);
    if (!target) return { text: '', iframeRefs: [], next: nextRef(opts.seed), missing: true };
    root = target;
    visit(root, items);
  } else {
    collect(root, items);
  }
  trimEnds(items);
  if (!opts.allUrls) pruneUrls(links);
  numberRefs(items, opts.seed);
  const iframeRefs = iframes.map((node) => node.ref!);
  const { text, more } = parcel(renderYaml(items, opts.prefix, opts.depth ?? Infinity));
  last = token ? { token, active, controls, sheets } : undefined;
  return {
    text,
    ...(more ? { more } : {}),
    iframeRefs,
    next: nextRef(opts.seed),
    ...(stopped ? { stopped } : {}),
    ...(last ? { token: last.token } : {}),
    ...(listenersMarked() ? { listenersMarked: true } : {}),
  };
}
