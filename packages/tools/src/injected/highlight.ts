/** Highlight overlays (browser_highlight): boxes drawn over elements, kept until hidden. */

const overlays = new Map<Element, HTMLElement>();

/** Draws (or redraws) a box over the element; `style` is extra inline CSS for the box. */
export function highlight(el: Element, style: string | undefined): void {
  overlays.get(el)?.remove();
  const r = el.getBoundingClientRect();
  const box = document.createElement('div');
  box.setAttribute('data-browsermcp-highlight', '');
  box.style.cssText =
    `position:absolute;left:${r.left + scrollX}px;top:${r.top + scrollY}px;width:${r.width}px;height:${r.height}px;` +
    'box-sizing:border-box;outline:2px solid #d1242f;background:rgba(209,36,47,.12);pointer-events:none;z-index:2147483646;' +
    (style ?? '');
  document.documentElement.append(box);
  overlays.set(el, box);
}

/** Removes the element's box, or every box; returns how many were removed. */
export function hideHighlight(el: Element | null): number {
  const targets = el ? (overlays.has(el) ? [el] : []) : [...overlays.keys()];
  for (const t of targets) {
    overlays.get(t)!.remove();
    overlays.delete(t);
  }
  return targets.length;
}
