/** What still shows inside an element that is not visible itself (`checkVisibility` with the visibility property). */
export type ShownInside = 'all' | 'elements' | 'nothing';

/**
 * For an element that failed `checkVisibility({ visibilityProperty: true })`:
 * - `visibility: hidden` keeps its box: an element inside can be made visible again, the text is not on screen;
 * - `display: contents` has no box of its own: its children show, its text only if its visibility is visible;
 * - `display: none` (or a hidden ancestor): nothing below shows.
 */
export function shownInside(el: Element): ShownInside {
  if (el.checkVisibility()) return 'elements';
  const style = getComputedStyle(el);
  if (style.display !== 'contents') return 'nothing';
  return style.visibility === 'visible' ? 'all' : 'elements';
}
