import { roleOf } from './roles.js';
import { collapse, isBlock } from './util.js';
import { shownInside } from './visibility.js';

/** Accessible names for the common cases (see ARCHITECTURE.md: a fast path, not the full computation). */

function textOfIds(ids: string): string {
  return collapse(
    ids
      .split(/\s+/)
      .map((id) => {
        const el = document.getElementById(id);
        return el ? labelText(el) : '';
      })
      .join(' '),
  );
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
    const t = textOfIds(labelledBy);
    if (t) return t;
  }
  const label = el.getAttribute('aria-label');
  if (label && label.trim()) return collapse(label);
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'METER' || tag === 'PROGRESS') {
    const input = el as HTMLInputElement;
    const type = (input.type || '').toLowerCase();
    if (tag === 'INPUT' && (type === 'button' || type === 'submit' || type === 'reset')) {
      return input.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
    }
    if (tag === 'INPUT' && type === 'image') return input.alt || 'Submit';
    const labels = input.labels;
    if (labels && labels.length) {
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
    for (let n = parent.firstChild; n; n = n.nextSibling) {
      if (n === control) continue;
      if (n.nodeType === 3) {
        if (shown) out += n.nodeValue;
        continue;
      }
      if (n.nodeType !== 1) continue;
      const el = n as Element;
      const shownAll = everything || el.checkVisibility({ visibilityProperty: true });
      const inside = shownAll ? 'all' : shownInside(el);
      if (inside === 'nothing') continue;
      // A block-level element keeps its words apart from those around it, as the snapshot's text does.
      const block = isBlock(el);
      if (block) out += ' ';
      visit(el, inside === 'all');
      if (block) out += ' ';
    }
  };
  visit(label, true);
  return out;
}

// A <label> whose text is in the name of a control the snapshot shows, or the <legend> naming its <fieldset>:
// writing that text again as `- text:` next to the control would only repeat it.
export function namesItsOwner(el: Element): boolean {
  if (el.tagName === 'LABEL') {
    const control = (el as HTMLLabelElement).control;
    if (!control || !control.checkVisibility({ visibilityProperty: true }) || control.getAttribute('aria-hidden') === 'true') return false;
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
