import { attrName } from './names.js';
import { NAME_FROM_CONTENT, roleOf } from './roles.js';
import { isChecked } from './actions.js';
import { clip, collapse } from './util.js';

/** Locators and checks as Playwright tests write them: for browser_generate_locator and the verify tools. */

/** The element's accessible name, as the snapshot shows it. */
export function accessibleName(el: Element): string {
  const role = roleOf(el, false);
  const own = attrName(el, role, false) || collapse(el.getAttribute('title') ?? '');
  if (own || !NAME_FROM_CONTENT.has(role)) return own;
  return collapse((el as HTMLElement).innerText ?? el.textContent ?? '');
}

/** How a test finds an element, before it is written in a language (src/codegen.ts renders it). */
export type LocatorSpec =
  | { kind: 'testId'; value: string }
  | { kind: 'role'; role: string; name?: string }
  | { kind: 'text'; value: string }
  | { kind: 'css'; value: string };

/**
 * A Playwright locator for the element, the way a person would write a test: by test id, then role and name, then
 * label or text, and a CSS selector as the last resort.
 */
export function locatorSpecFor(el: Element, testIdAttribute: string): LocatorSpec {
  // A frame is entered by a CSS locator (ARIA has no role for it): its id, title or name.
  if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
    const tag = el.tagName.toLowerCase();
    if (el.id) return { kind: 'css', value: `#${CSS.escape(el.id)}` };
    for (const attr of ['title', 'name']) {
      const value = el.getAttribute(attr);
      if (value) return { kind: 'css', value: `${tag}[${attr}=${JSON.stringify(value)}]` };
    }
    return { kind: 'css', value: cssPath(el) };
  }
  const testId = el.getAttribute(testIdAttribute);
  if (testId) return { kind: 'testId', value: testId };
  const role = roleOf(el, false);
  const name = accessibleName(el);
  if (role !== 'generic' && role !== 'presentation' && role !== 'none' && role !== 'paragraph') {
    return name ? { kind: 'role', role, name: clip(name, 200) } : { kind: 'role', role };
  }
  const text = collapse((el as HTMLElement).innerText ?? el.textContent ?? '');
  if (text && text.length <= 80) return { kind: 'text', value: text };
  if (el.id) return { kind: 'css', value: `#${CSS.escape(el.id)}` };
  return { kind: 'css', value: cssPath(el) };
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
