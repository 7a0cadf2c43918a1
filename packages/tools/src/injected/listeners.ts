import { changeCount, sheetsKey, sheetsOf } from './changes.js';

/**
 * What a page wired to an element that the DOM does not show: click listeners however they were added, and CSS
 * rules that show something while the element is hovered. Both make an element a target a person acts on.
 */

type ListenerReader = (el: Element) => Record<string, unknown[] | undefined>;

/**
 * DevTools' `getEventListeners`, taken while the script is installed: the engine installs it through a DevTools
 * evaluation that has the console's functions in scope (in-page.ts). It is kept here, never on the API the page can
 * reach. A document installed without it (an older engine) simply sees fewer listeners.
 */
let readListeners: ListenerReader | undefined;

/** Called once by install.ts with what `getEventListeners` was at install time. */
export function keepListenerReader(reader: unknown): void {
  if (!readListeners && typeof reader === 'function') readListeners = reader as ListenerReader;
}

/**
 * Where the console's functions are not given (Chrome gives them to no extension), the engine reads the listeners
 * through DevTools' DOMDebugger instead and marks here the elements that listen for a press (engine/listeners.ts),
 * again whenever the page has changed since.
 */
let marked = new WeakSet<Element>();
let markedAt = -1;

/** Whether this document's listeners are read by the engine's marks, and they are older than the page. */
export function listenerMarksStale(): boolean {
  return !readListeners && markedAt !== changeCount();
}

/** The elements the engine found listening for a press (see engine/listeners.ts). */
export function markPressed(elements: Element[]): void {
  marked = new WeakSet(elements);
  markedAt = changeCount();
}

/** Whether the walk sees listeners only through the engine's marks. */
export const listenersMarked = (): boolean => !readListeners;

/** Events that mean "press here": a listener for any of them makes its element something a person clicks. */
// (Not touchstart: scrollers listen for it to tell a touch scroll, TanStack Virtual's among them.)
const PRESS_EVENTS = ['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup'];
/**
 * A root that listens for this many kinds of events delegates them for what is inside (React's root container,
 * an app's shell): it is not a click target of its own.
 */
const DELEGATING_KINDS = 12;

/**
 * Whether an element listening for these kinds of events is a click target: it listens for a press, and not for so
 * many kinds that it delegates them. One rule for both readings (here, and the engine's marks: engine/listeners.ts).
 */
export function pressTarget(types: Iterable<string>): boolean {
  let kinds = 0;
  let press = false;
  for (const type of types) {
    kinds++;
    if (PRESS_EVENTS.includes(type)) press = true;
  }
  return press && kinds < DELEGATING_KINDS;
}

/**
 * Handlers a framework keeps on the element itself: React's props (`__reactProps$…`), Vue 3's event invokers (`_vei`,
 * a symbol since Vue 3.4), Svelte 5's and Solid's delegated handlers (`__click`, `$$click`). These frameworks put no
 * attribute on the element, and React, Svelte and Solid delegate from their root, so no listener sits on it either.
 */
const REACT_CLICKS = ['onClick', 'onMouseDown', 'onDoubleClick', 'onPointerDown'];
const VUE_CLICKS = ['onClick', 'onMousedown', 'onDblclick', 'onPointerdown'];

function handles(handlers: unknown, names: readonly string[]): boolean {
  return typeof handlers === 'object' && handlers !== null && names.some((k) => (handlers as Record<string, unknown>)[k]);
}

function frameworkClick(el: Element): boolean {
  const own = el as unknown as Record<string | symbol, unknown>;
  if (handles(own._vei, VUE_CLICKS)) return true;
  if (typeof own.__click === 'function' || typeof own.$$click === 'function' || typeof own.__mousedown === 'function') return true;
  for (const key of Object.keys(el)) if (key.startsWith('__reactProps$')) return handles(own[key], REACT_CLICKS);
  for (const key of Object.getOwnPropertySymbols(el)) if (key.description === '_vei') return handles(own[key], VUE_CLICKS);
  return false;
}

/** Whether a listener for a press sits on `el` itself (added with addEventListener, `onclick = …`, a library). */
function listensForPress(el: Element): boolean {
  if (!readListeners) return marked.has(el);
  let listeners: Record<string, unknown[] | undefined>;
  try {
    listeners = readListeners(el);
  } catch {
    return false;
  }
  return pressTarget(Object.keys(listeners).filter((type) => listeners[type]?.length));
}

/** Whether the page handles a press on `el`: a framework's handler or a listener of its own. */
export function handlesPress(el: Element): boolean {
  return frameworkClick(el) || listensForPress(el);
}

/**
 * Elements a CSS rule reveals something for while they are hovered (`.menu li:hover > ul { display: block }`): a
 * person hovers them to open a menu or show a row's actions, so the agent needs a ref to hover. Worked out from each
 * tree's style sheets once while the page does not change: what each rule would reveal (its selector without
 * `:hover`), then the hovered element it hangs on. Rules that only restyle (a row's background) are left out.
 */
const REVEALS = ['display', 'visibility', 'opacity', 'max-height', 'height', 'transform', 'pointer-events', 'clip-path'];
/** At most this many revealed elements are traced back per rule (a rule over every row of a big table). */
const TRACED_PER_RULE = 2000;
const hoverTriggers = new WeakMap<Document | ShadowRoot, { at: number; sheets: string; triggers: Set<Element> }>();

/** Splits a selector list at its top-level commas (`:is(a, b)` stays whole). */
function selectorsOf(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(list.slice(start, i));
      start = i + 1;
    }
  }
  out.push(list.slice(start));
  return out;
}

/** A hover rule's parts: what is hovered, and what is revealed then (the selector without `:hover`). */
interface HoverRule {
  hovered: string;
  revealed: string;
}

/** The parts of `selector` when a combinator follows its `:hover` (the hovered element reveals another), or undefined. */
function hoverRuleOf(selector: string): HoverRule | undefined {
  const s = selector.trim();
  const at = s.indexOf(':hover');
  if (at <= 0) return undefined;
  const hovered = s.slice(0, at);
  // Further pseudo-classes of the hovered element (`:hover:not(.x)`), then what it reveals after a combinator.
  const after = s.slice(at + 6).replace(/^(?::[\w-]+(?:\([^)]*\))?)*/, '');
  if (!/^\s*[>+~\s]\s*[^\s]/.test(after) || /[\s>+~]$/.test(hovered) || after.includes(':hover')) return undefined;
  return { hovered, revealed: `${hovered}${s.slice(at + 6)}` };
}

function collectRules(rules: CSSRuleList, into: HoverRule[]): void {
  for (const rule of Array.from(rules)) {
    if (rule instanceof CSSStyleRule) {
      if (!rule.selectorText.includes(':hover') || !REVEALS.some((p) => rule.style.getPropertyValue(p))) continue;
      for (const s of selectorsOf(rule.selectorText)) {
        const parts = hoverRuleOf(s);
        if (parts) into.push(parts);
      }
    } else if ('cssRules' in rule && !(rule instanceof CSSImportRule)) {
      collectRules((rule as CSSGroupingRule).cssRules, into);
    }
  }
}

/** The element hovered to reveal `el` by a rule whose hovered part is `hovered`: an ancestor, or a sibling before it. */
function hoveredFor(el: Element, hovered: string): Element | null {
  for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.matches(hovered)) return s;
  return el.parentElement?.closest(hovered) ?? null;
}

function triggersOf(root: Document | ShadowRoot): Set<Element> {
  // The sheets by identity and rule count, not their number: a hover rule added through the CSSOM changes no DOM.
  const sheets = sheetsKey(root);
  const known = hoverTriggers.get(root);
  if (known && known.at === changeCount() && known.sheets === sheets) return known.triggers;
  const rules: HoverRule[] = [];
  for (const sheet of sheetsOf(root)) {
    try {
      collectRules(sheet.cssRules, rules);
    } catch {
      // Another origin's sheet cannot be read.
    }
  }
  const triggers = new Set<Element>();
  for (const { hovered, revealed } of rules) {
    try {
      const shown = root.querySelectorAll(revealed);
      for (let i = 0; i < shown.length && i < TRACED_PER_RULE; i++) {
        const trigger = hoveredFor(shown[i]!, hovered);
        if (trigger) triggers.add(trigger);
      }
    } catch {
      // A selector this engine cannot parse (a newer syntax) reveals nothing here.
    }
  }
  hoverTriggers.set(root, { at: changeCount(), sheets, triggers });
  return triggers;
}

/** Whether hovering an element reveals something by a CSS rule of its tree. */
export type HoverCheck = (el: Element) => boolean;

/**
 * A check for one walk: each tree's triggers are looked up once (the page does not change while a walk runs), not
 * once per element (counting a tree's style sheets for each of a big page's elements was a tenth of its walk).
 */
export function hoverCheck(): HoverCheck {
  const byRoot = new Map<Node, Set<Element>>();
  return (el) => {
    const root = el.getRootNode() as Document | ShadowRoot;
    let triggers = byRoot.get(root);
    if (!triggers) byRoot.set(root, (triggers = triggersOf(root)));
    return triggers.size > 0 && triggers.has(el);
  };
}
