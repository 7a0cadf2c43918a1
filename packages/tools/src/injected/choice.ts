import { accessibleName } from './locator.js';
import { roleOf } from './roles.js';
import { collapse } from './util.js';

/**
 * A custom select's option, clicked: whether the widget took the choice. A click can land while the list is still
 * moving, or the widget can refuse; the answer must not say the option was chosen when the widget shows another.
 * The option is often gone after the click (the list closes), so what to look for is noted before it.
 */

interface Pending {
  combobox: WeakRef<Element>;
  option: WeakRef<Element>;
  name: string;
}
let pending: Pending | undefined;

/** The element that opens and shows the list: the one whose aria-controls or aria-owns names it. */
function openerOf(list: Element): Element | null {
  if (!list.id) return null;
  const id = CSS.escape(list.id);
  return (list.getRootNode() as Document | ShadowRoot).querySelector(`[aria-controls~="${id}"], [aria-owns~="${id}"]`);
}

/** Notes `option`'s choice before a click, if it is an option of a custom select (a native <option> checks itself). */
export function expectChoice(option: Element): boolean {
  pending = undefined;
  if (option instanceof HTMLOptionElement || roleOf(option, false) !== 'option') return false;
  const list = option.closest('[role="listbox"]');
  const combobox = list && openerOf(list);
  if (!combobox) return false;
  pending = { combobox: new WeakRef(combobox), option: new WeakRef(option), name: accessibleName(option) };
  return true;
}

/**
 * What the widget shows: a field's value and the text around it (react-select and Ant Design show the choice beside
 * their input), or the text of the button that opens the list.
 */
function shownBy(combobox: Element): string {
  if (!(combobox instanceof HTMLInputElement)) return collapse(combobox.textContent ?? '');
  let around: Element | null = combobox.parentElement;
  for (let up = 0; around && up < 3 && !collapse(around.textContent ?? ''); up++) around = around.parentElement;
  return collapse(`${combobox.value} ${around?.textContent ?? ''}`);
}

/** After the click: undefined when the widget took the choice (or cannot tell), else what it shows instead. */
export function choiceRefused(): { name: string; shows: string } | undefined {
  const p = pending;
  pending = undefined;
  const combobox = p?.combobox.deref();
  if (!p?.name || !combobox?.isConnected) return undefined;
  const option = p.option.deref();
  if (option?.isConnected && option.getAttribute('aria-selected') === 'true') return undefined;
  const shows = shownBy(combobox);
  if (!shows || shows.includes(p.name) || p.name.includes(shows)) return undefined;
  return { name: p.name, shows };
}
