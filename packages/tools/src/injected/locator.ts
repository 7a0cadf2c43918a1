import { attrName } from './names.js';
import { NAME_FROM_CONTENT, roleOf } from './roles.js';
import { isChecked } from './actions.js';
import { clip, collapse } from './util.js';

/** Locators and checks as Playwright tests write them: for browser_generate_locator and the verify tools. */

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The element's accessible name, as the snapshot shows it. */
export function accessibleName(el: Element): string {
  const role = roleOf(el, false);
  const own = attrName(el, role, false) || collapse(el.getAttribute('title') ?? '');
  if (own || !NAME_FROM_CONTENT.has(role)) return own;
  return collapse((el as HTMLElement).innerText ?? el.textContent ?? '');
}

/**
 * A Playwright locator for the element, the way a person would write a test: by test id, then role and name, then
 * label or text, and a CSS selector as the last resort.
 */
export function locatorFor(el: Element, testIdAttribute: string): string {
  const testId = el.getAttribute(testIdAttribute);
  if (testId) return `getByTestId(${quote(testId)})`;
  const role = roleOf(el, false);
  const name = accessibleName(el);
  if (role !== 'generic' && role !== 'presentation' && role !== 'none' && role !== 'paragraph') {
    return name ? `getByRole(${quote(role)}, { name: ${quote(clip(name, 200))} })` : `getByRole(${quote(role)})`;
  }
  const text = collapse((el as HTMLElement).innerText ?? el.textContent ?? '');
  if (text && text.length <= 80) return `getByText(${quote(text)})`;
  if (el.id) return `locator(${quote(`#${CSS.escape(el.id)}`)})`;
  return `locator(${quote(cssPath(el))})`;
}

function cssPath(el: Element): string {
  const parts: string[] = [];
  for (let e: Element | null = el; e && e !== document.documentElement; e = e.parentElement) {
    if (e.id) {
      parts.unshift(`#${CSS.escape(e.id)}`);
      break;
    }
    const parent: Element | null = e.parentElement;
    const same = parent ? Array.from(parent.children).filter((c) => c.tagName === e!.tagName) : [];
    parts.unshift(same.length > 1 ? `${e.tagName.toLowerCase()}:nth-of-type(${same.indexOf(e) + 1})` : e.tagName.toLowerCase());
  }
  return parts.join(' > ');
}

/** The value browser_verify_value compares: a field's value, or "true"/"false" for a checkbox or radio. */
export function valueToVerify(el: Element, type: 'textbox' | 'checkbox' | 'radio' | 'combobox' | 'slider'): string {
  if (type === 'checkbox' || type === 'radio') return String(isChecked(el));
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return el.value;
  if ((el as HTMLElement).isContentEditable) return el.textContent ?? '';
  return el.getAttribute('aria-valuenow') ?? el.getAttribute('aria-valuetext') ?? '';
}
