import type { Item, TreeNode } from './yaml.js';

/** Roles whose rows a data grid may show in another order than the DOM's (sorted by moving rows, virtualised). */
export const ROW_HOLDERS = new Set(['grid', 'treegrid', 'table', 'rowgroup']);

/** A row's place as the page declares it (aria-rowindex), or where it is drawn when the grid positions its rows. */
function rowPlace(el: Element, drawn: boolean): number {
  if (!drawn) return Number(el.getAttribute('aria-rowindex'));
  return el.getBoundingClientRect().top;
}

/**
 * Puts a grid's rows in the order a person sees them (in place among its other items): by aria-rowindex where every
 * row has one, else, where the grid draws its rows at positions of its own (absolute, or moved by a transform), from
 * top to bottom. A plain table keeps the DOM's order without reading any style.
 */
export function inVisualOrder(items: Item[]): void {
  const slots: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (typeof item !== 'string' && item.role === 'row' && item.el) slots.push(i);
  }
  if (slots.length < 2) return;
  const rows = slots.map((i) => items[i] as TreeNode);
  const indexed = rows.every((r) => Number.isFinite(Number(r.el!.getAttribute('aria-rowindex') ?? NaN)));
  let drawn = false;
  if (!indexed) {
    const style = getComputedStyle(rows[0]!.el!);
    drawn = style.position === 'absolute' || style.transform !== 'none';
    if (!drawn) return;
  }
  const placed = rows.map((row, i) => ({ row, at: rowPlace(row.el!, drawn), i }));
  placed.sort((a, b) => a.at - b.at || a.i - b.i);
  for (const [k, slot] of slots.entries()) items[slot] = placed[k]!.row;
}
