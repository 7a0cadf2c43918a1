import { collapse } from './util.js';

/** What the snapshot says about an element's state and value: [checked], [expanded], [disabled], its value. */

const VALUE_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'PROGRESS', 'METER']);
const VALUE_ROLES = new Set(['textbox', 'slider', 'spinbutton', 'progressbar', 'meter']);

/** Disabled for a person: aria-disabled, the `disabled` property, or a form control in a disabled fieldset. */
export function isDisabled(el: Element, bare = false): boolean {
  return (
    (!bare && el.getAttribute('aria-disabled') === 'true') ||
    // `disabled` is a live property on buttons, inputs, options, fieldsets…; undefined elsewhere.
    (el as HTMLButtonElement).disabled === true ||
    (/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(el.tagName) && el.closest('fieldset:disabled') !== null)
  );
}

// `bare`: the element has no attributes, so every aria-* lookup can be skipped (most cells, rows, list items).
export function props(el: Element, role: string, bare: boolean, active: Element | null): string {
  const attr = (name: string) => (bare ? null : el.getAttribute(name));
  let p = '';
  if (role === 'heading') {
    const level = attr('aria-level') ?? /^H([1-6])$/.exec(el.tagName)?.[1] ?? '';
    if (level) p += ` [level=${level}]`;
  }
  if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
    const aria = attr('aria-checked');
    const checked = el instanceof HTMLInputElement ? (el.indeterminate ? 'mixed' : el.checked) : aria === 'mixed' ? 'mixed' : aria === 'true';
    if (checked === 'mixed') p += ' [checked=mixed]';
    else if (checked) p += ' [checked]';
  }
  if (role === 'option') {
    if (el instanceof HTMLOptionElement ? el.selected : attr('aria-selected') === 'true') p += ' [selected]';
  } else if (attr('aria-selected') === 'true') p += ' [selected]';
  const pressed = attr('aria-pressed');
  if (pressed === 'true') p += ' [pressed]';
  else if (pressed === 'mixed') p += ' [pressed=mixed]';
  const expanded = attr('aria-expanded');
  if (expanded === 'true') p += ' [expanded]';
  else if (el.tagName === 'DETAILS' && (el as HTMLDetailsElement).open) p += ' [expanded]';
  if (isDisabled(el, bare)) p += ' [disabled]';
  if (el === active) p += ' [active]';
  return p;
}

export function shownValue(el: Element, role: string): string | undefined {
  if (!VALUE_TAGS.has(el.tagName) && !VALUE_ROLES.has(role)) return undefined;
  if (el instanceof HTMLInputElement) {
    const type = el.type.toLowerCase();
    if (type === 'checkbox' || type === 'radio' || type === 'button' || type === 'submit' || type === 'reset' || type === 'image') return undefined;
    if (type === 'password') return el.value ? '••••' : undefined;
    if (type === 'file') return el.files?.length ? Array.from(el.files, (f) => f.name).join(', ') : undefined;
    return el.value || undefined;
  }
  if (el instanceof HTMLTextAreaElement) return el.value || undefined;
  if (el instanceof HTMLSelectElement) {
    if (role === 'listbox') return undefined;
    return collapse(Array.from(el.selectedOptions, (o) => o.label || o.text).join(', ')) || undefined;
  }
  if (role === 'textbox' && (el as HTMLElement).isContentEditable) return collapse(el.textContent ?? '') || undefined;
  const now = el.getAttribute('aria-valuenow');
  if (now !== null && (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter')) return now;
  if (el instanceof HTMLProgressElement || el instanceof HTMLMeterElement) return String(el.value);
  return undefined;
}
