import { changeCount } from './changes.js';
import { roleOf } from './roles.js';
import { collapse, isBlock } from './util.js';
import { shownInside } from './visibility.js';

/** Accessible names for the common cases (docs/architecture.md, "In-page code": a fast path, not the full computation). */

/** The element with `id` in `of`'s own tree: its shadow root's, where the page's id would name another element. */
function byId(of: Element, id: string): Element | null {
  const root = of.getRootNode() as Document | ShadowRoot;
  return typeof root.getElementById === 'function' ? root.getElementById(id) : document.getElementById(id);
}

function textOfIds(of: Element, ids: string): string {
  return collapse(
    ids
      .split(/\s+/)
      .map((id) => {
        const el = id ? byId(of, id) : null;
        return el ? labelText(el) : '';
      })
      .join(' '),
  );
}

/** Roles of widgets a `<label for>` names, native or not (a `<button role="checkbox">`, a custom switch). */
const LABELLED_WIDGETS = new Set(['button', 'checkbox', 'radio', 'switch', 'combobox', 'listbox', 'slider', 'spinbutton', 'textbox', 'searchbox']);

/** Each tree's `<label for>`s by the id they name, read once while the page does not change (changes.ts). */
const labelsFor = new WeakMap<Document | ShadowRoot, { at: number; byId: Map<string, Element[]> }>();

function labelsNaming(root: Document | ShadowRoot, id: string): Element[] {
  let known = labelsFor.get(root);
  if (!known || known.at !== changeCount()) {
    const byId = new Map<string, Element[]>();
    for (const label of Array.from(root.querySelectorAll('label[for]'))) {
      const target = (label as HTMLLabelElement).htmlFor;
      byId.set(target, [...(byId.get(target) ?? []), label]);
    }
    labelsFor.set(root, (known = { at: changeCount(), byId }));
  }
  return known.byId.get(id) ?? [];
}

/** The text of the `<label>`s that name `el`: its own `labels` (HTML's labelable elements), else `<label for>` its id. */
function labelsOf(el: Element): string {
  const own = (el as HTMLButtonElement).labels;
  let labels: Element[] = own ? Array.from(own) : [];
  if (!labels.length && el.id) labels = labelsNaming(el.getRootNode() as Document | ShadowRoot, el.id);
  return collapse(labels.map((l) => labelText(l, el)).join(' '));
}

/** The control a `<label>` names: HTML's, or the ARIA widget its `for` names in its own tree. */
function controlOf(label: HTMLLabelElement): Element | null {
  if (label.control) return label.control;
  const target = label.htmlFor ? byId(label, label.htmlFor) : null;
  return target && LABELLED_WIDGETS.has(roleOf(target, false)) ? target : null;
}

/**
 * The name an element takes from its own attributes and labels (aria-labelledby, aria-label, labels, alt, legend,
 * caption, title, placeholder), or '' when it has none: names from content are the walk's business.
 */
export function attrName(el: Element, role: string, bare: boolean): string {
  const tag = el.tagName;
  if (bare && tag !== 'INPUT' && tag !== 'TEXTAREA' && tag !== 'SELECT' && tag !== 'TABLE' && tag !== 'FIELDSET') return '';
  const labelledBy = el.getAttribute('aria-labelledby');
  if (labelledBy) {
    const t = textOfIds(el, labelledBy);
    if (t) return t;
  }
  const label = el.getAttribute('aria-label');
  if (label?.trim()) return collapse(label);
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'METER' || tag === 'PROGRESS') {
    const input = el as HTMLInputElement;
    const type = (input.type || '').toLowerCase();
    if (tag === 'INPUT' && (type === 'button' || type === 'submit' || type === 'reset')) {
      return input.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
    }
    if (tag === 'INPUT' && type === 'image') return input.alt || 'Submit';
    const labels = input.labels;
    if (labels?.length) {
      const t = collapse(Array.from(labels, (l) => labelText(l, el)).join(' '));
      if (t) return t;
    }
    const title = el.getAttribute('title');
    if (title) return collapse(title);
    const placeholder = el.getAttribute('placeholder');
    if (placeholder) return collapse(placeholder);
    return '';
  }
  if (tag === 'IMG' || tag === 'AREA') return collapse(el.getAttribute('alt') ?? el.getAttribute('title') ?? '');
  if (tag === 'FIELDSET') {
    const legend = el.querySelector(':scope > legend');
    if (legend) return collapse(labelText(legend));
  }
  if (tag === 'TABLE') {
    const caption = (el as HTMLTableElement).caption;
    if (caption) return collapse(labelText(caption));
  }
  if (role === 'iframe') return collapse(el.getAttribute('title') ?? '');
  if (LABELLED_WIDGETS.has(role)) return labelsOf(el);
  return '';
}

/**
 * The text an element gives as a label (a <label>, a legend, a caption, an aria-labelledby target): what a person sees
 * of it, as the accessible-name rules read it. Text under display: none or visibility: hidden is left out, unless the
 * label itself is hidden (a hidden label still names its control). `control`: a control inside the label, left out
 * (its value would repeat).
 */
export function labelText(label: Element, control?: Element): string {
  const everything = !label.checkVisibility({ visibilityProperty: true });
  let out = '';
  const visit = (parent: Node, shown: boolean) => {
    // A slot reads as what is assigned to it (a web component's label), else its own fallback content.
    const assigned = parent instanceof HTMLSlotElement ? parent.assignedNodes({ flatten: true }) : [];
    if (assigned.length) {
      for (const n of assigned) visitNode(n, shown);
      return;
    }
    for (let n = (parent instanceof Element && parent.shadowRoot ? parent.shadowRoot : parent).firstChild; n; n = n.nextSibling) visitNode(n, shown);
  };
  const visitNode = (n: Node, shown: boolean) => {
    if (n === control) return;
    if (n.nodeType === 3) {
      if (shown) out += n.nodeValue;
      return;
    }
    if (n.nodeType !== 1) return;
    const el = n as Element;
    const shownAll = everything || el.tagName === 'SLOT' || el.checkVisibility({ visibilityProperty: true });
    const inside = shownAll ? 'all' : shownInside(el);
    if (inside === 'nothing') return;
    // A block-level element keeps its words apart from those around it, as the snapshot's text does.
    const block = isBlock(el);
    if (block) out += ' ';
    visit(el, inside === 'all');
    if (block) out += ' ';
  };
  visit(label, true);
  return out;
}

// A <label> whose text is in the name of a control the snapshot shows, or the <legend> naming its <fieldset>:
// writing that text again as `- text:` next to the control would only repeat it.
export function namesItsOwner(el: Element): boolean {
  if (el.tagName === 'LABEL') {
    const control = controlOf(el as HTMLLabelElement);
    if (!control?.checkVisibility({ visibilityProperty: true }) || control.getAttribute('aria-hidden') === 'true') return false;
    const text = collapse(labelText(el as HTMLLabelElement, control));
    return text !== '' && attrName(control, roleOf(control, false), false).includes(text);
  }
  if (el.tagName === 'LEGEND') {
    const fieldset = el.parentElement;
    return (
      fieldset?.tagName === 'FIELDSET' &&
      fieldset.querySelector(':scope > legend') === el &&
      !fieldset.hasAttribute('aria-label') &&
      !fieldset.hasAttribute('aria-labelledby')
    );
  }
  return false;
}
