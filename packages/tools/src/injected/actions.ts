import { isDisabled } from './states.js';

/** Acting on elements: the one check before an action, and setting form controls as a person would. */

export interface ActionPoint {
  ok: boolean;
  x: number;
  y: number;
  /** Why the element cannot be acted on yet. */
  reason?: string;
  /** A click here opens a file chooser (a file input, or a label for one). */
  opensChooser?: boolean;
  /** An animation moves the element or what holds it (a dropdown sliding open): the point may not hold yet. */
  moving?: boolean;
}

/**
 * Whether a running animation or transition acts on `el` or an element around it: a list of options still sliding
 * into place, whose option would be clicked where it was a moment ago (a click that "chose" a neighbour).
 */
function isMoving(el: Element): boolean {
  for (const animation of document.getAnimations()) {
    const target = (animation.effect as KeyframeEffect | null)?.target;
    if (animation.playState === 'running' && target && composedContains(target, el)) return true;
  }
  return false;
}

/**
 * One in-page check before acting: scroll into view, then visible, enabled and hit-testable at its center.
 * Returns the center in the frame's viewport coordinates.
 */
export function prepareAction(el: Element, needsEnabled: boolean): ActionPoint {
  const describe = (e: Element) => {
    let s = e.tagName.toLowerCase();
    if (e.id) s += `#${e.id}`;
    const cls = typeof e.className === 'string' ? e.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
    if (cls.length) s += `.${cls.join('.')}`;
    return `<${s}>`;
  };
  if (!el.isConnected) return { ok: false, x: 0, y: 0, reason: 'element is no longer attached to the page' };
  if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: false })) {
    return { ok: false, x: 0, y: 0, reason: 'element is not visible' };
  }
  if (needsEnabled && isDisabled(el)) return { ok: false, x: 0, y: 0, reason: 'element is disabled' };
  let rect = el.getBoundingClientRect();
  const inView = rect.top >= 0 && rect.left >= 0 && rect.bottom <= innerHeight && rect.right <= innerWidth;
  if (!inView) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    rect = el.getBoundingClientRect();
  }
  if (rect.width === 0 || rect.height === 0) {
    // Inline elements split across lines: use the first box that has a size.
    const box = Array.from(el.getClientRects()).find((r) => r.width > 0 && r.height > 0);
    if (!box) return { ok: false, x: 0, y: 0, reason: 'element has no size' };
    rect = box;
  }
  const x = rect.left + rect.width / 2;
  const y = rect.top + rect.height / 2;
  const hit = deepestAt(x, y);
  if (hit && !composedContains(el, hit)) {
    // A label for the control receives the click on its behalf; so does the widget an input is hidden in (a slider's
    // thumb over its clipped range input): a person clicks what they see of it.
    const label = hit.closest('label');
    if (!(label && (label as HTMLLabelElement).control === el) && !(el instanceof HTMLInputElement && composedContains(hit, el))) {
      return { ok: false, x, y, reason: `another element would receive the click: ${describe(hit)}` };
    }
  }
  const control = el instanceof HTMLLabelElement ? el.control : el;
  return { ok: true, x, y, opensChooser: control instanceof HTMLInputElement && control.type === 'file', moving: isMoving(el) };
}

/**
 * The element a click at (x, y) lands on, in the composed tree: down through open shadow roots, where the document's
 * own answer is only the host (Shoelace's button over its slotted label).
 */
function deepestAt(x: number, y: number): Element | null {
  let hit = document.elementFromPoint(x, y);
  while (hit?.shadowRoot) {
    const root = hit.shadowRoot;
    let inner = root.elementFromPoint(x, y);
    // Over text slotted straight into the host, the root answers the host itself: the element of its own tree that
    // draws there (Shoelace's button around its label's slot) is the one below.
    if (inner === hit) inner = root.elementsFromPoint(x, y).find((e) => e.getRootNode() === root) ?? null;
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

/** Whether `node` is `el` or inside it in the composed tree: through the slot it is shown in, and out of shadow roots. */
function composedContains(el: Element, node: Node): boolean {
  for (let n: Node | null = node; n; n = (n as Element).assignedSlot ?? n.parentNode ?? (n instanceof ShadowRoot ? n.host : null)) {
    if (n === el) return true;
  }
  return false;
}

/** Focuses a text field and (to replace it) selects its content; or says why it cannot be typed into. */
export function focusForTyping(node: Element, replace = true): 'ok' | 'not-editable' | 'readonly' {
  const e = node as HTMLElement;
  const isInput = e instanceof HTMLInputElement || e instanceof HTMLTextAreaElement;
  if (!isInput && !e.isContentEditable) return 'not-editable';
  if ((e as HTMLInputElement).readOnly) return 'readonly';
  e.focus();
  // Typing at the caret (@playwright/mcp's pressSequentially) keeps what the field holds: focus only.
  if (!replace) return 'ok';
  if (isInput) (e as HTMLInputElement).select();
  else {
    const range = document.createRange();
    range.selectNodeContents(e);
    const sel = getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
  }
  return 'ok';
}

/** Selects options of a <select> by value or label, with the events a person's choice fires. */
export function selectOptions(node: Element, values: string[]): { missing: string[]; available: string[] } | 'not-select' {
  if (!(node instanceof HTMLSelectElement)) return 'not-select';
  const options = Array.from(node.options);
  const missing: string[] = [];
  const chosen = new Set<HTMLOptionElement>();
  for (const v of values) {
    const opt = options.find((o) => o.value === v) ?? options.find((o) => o.label.trim() === v.trim() || o.text.trim() === v.trim());
    if (opt) chosen.add(opt);
    else missing.push(v);
  }
  if (missing.length) return { missing, available: options.map((o) => o.label || o.value) };
  if (!node.multiple && chosen.size > 1) return { missing: values.slice(1), available: ['(only one value: this select is not multiple)'] };
  for (const o of options) o.selected = chosen.has(o);
  node.dispatchEvent(new Event('input', { bubbles: true }));
  node.dispatchEvent(new Event('change', { bubbles: true }));
  return { missing: [], available: [] };
}

/** What setRange says of an element that is not an input type=range (an ARIA slider is set with keys instead). */
export const NOT_RANGE = 'not-range';

/** An ARIA slider's value (aria-valuenow), or undefined when it has none. */
export function sliderValue(node: Element): number | undefined {
  const now = node.getAttribute('aria-valuenow');
  return now === null || now.trim() === '' || !Number.isFinite(Number(now)) ? undefined : Number(now);
}

/** Sets a slider (input type=range) with its events; the problem in words when it cannot. */
export function setRange(node: Element, value: string): string | undefined {
  if (!(node instanceof HTMLInputElement) || node.type !== 'range') return NOT_RANGE;
  const n = Number(value);
  if (!Number.isFinite(n)) return `"${value}" is not a number`;
  // The prototype's setter, not the element's own: React keeps its own on the element to tell a change it made from
  // one a person made, and ignores the events of a value set through it (Material UI's slider stayed where it was).
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(node, String(n));
  node.dispatchEvent(new Event('input', { bubbles: true }));
  node.dispatchEvent(new Event('change', { bubbles: true }));
  // A range keeps to its min, max and step: say where it stands when that is not what was asked.
  return Number(node.value) === n ? undefined : `it holds ${node.value} (min ${node.min || 0}, max ${node.max || 100}, step ${node.step || 1})`;
}

/** Whether a checkbox or radio (native or ARIA) is checked. */
export function isChecked(node: Element): boolean {
  return node instanceof HTMLInputElement ? node.checked : node.getAttribute('aria-checked') === 'true';
}
