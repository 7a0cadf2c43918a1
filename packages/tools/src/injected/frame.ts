/** Facts about the document and its frames that the host needs for input and pictures. */

/** Where an iframe's content starts in its parent's viewport (border and padding included). */
export function frameContentOffset(el: Element): { x: number; y: number } {
  const r = el.getBoundingClientRect();
  const s = getComputedStyle(el);
  return {
    x: r.left + el.clientLeft + parseFloat(s.paddingLeft),
    y: r.top + el.clientTop + parseFloat(s.paddingTop),
  };
}

/** Whether the tab is hidden (behind another tab): Chrome paints no frames for it. */
export function isHidden(): boolean {
  return document.visibilityState === 'hidden';
}

/** The viewport's and the document's size in CSS pixels, and how many screen pixels make one. */
export function viewportSize(): { width: number; height: number; scrollWidth: number; scrollHeight: number; devicePixelRatio: number } {
  const root = document.documentElement;
  return { width: innerWidth, height: innerHeight, scrollWidth: root.scrollWidth, scrollHeight: root.scrollHeight, devicePixelRatio };
}

/** Scrolls an element to the middle of the viewport (to point the person at it). */
export function scrollToCenter(el: Element): void {
  el.scrollIntoView({ block: 'center' });
}
