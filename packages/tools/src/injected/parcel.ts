import { documentId } from './changes.js';

/**
 * A big string leaves the page in parts the host fetches in parallel. One CDP answer of 1.6 MB took ~240 ms here
 * (the renderer, the browser and the host handle it one after the other); eight parts of 200 kB in flight at once
 * took ~50 ms, as each stage works on one part while the next stage works on another.
 */

/** Characters per part: on the Rust book, eight parts beat four (88 ms) and sixteen (71 ms). */
export const PART_CHARS = 196_608;
/** Parcels not fetched yet, kept at most this many per document (a host that gave up leaves one behind). */
const KEPT = 4;

/**
 * A short string itself (`text`), or, for a long one, `text` empty and `more` saying where its parts wait: none of
 * them travels with the answer that parks them, as all parts in flight at once take about half the time of the first
 * part first and the rest after.
 */
export interface Parcel {
  text: string;
  more?: { id: string; parts: number };
}

const parked = new Map<string, { parts: Array<string | undefined>; left: number }>();
let counter = 0;

/** Parks a long `text` in parts for `parcelPart` (a short text travels whole). */
export function parcel(text: string): Parcel {
  if (text.length <= PART_CHARS) return { text };
  const count = Math.ceil(text.length / PART_CHARS);
  const parts: Array<string | undefined> = [];
  for (let i = 0; i < count; i++) parts.push(text.slice(i * PART_CHARS, (i + 1) * PART_CHARS));
  const id = `${documentId}:${++counter}`;
  parked.set(id, { parts, left: count });
  while (parked.size > KEPT) parked.delete(parked.keys().next().value!);
  return { text: '', more: { id, parts: count } };
}

/** How many parcels wait for their parts (tests check that none is left behind). */
export const parkedCount = (): number => parked.size;

/** Part `index` (from 0) of a parked parcel, once: the parcel is dropped when its last part is taken. */
export function parcelPart(id: string, index: number): string {
  const entry = parked.get(id);
  const part = entry?.parts[index];
  if (!entry || part === undefined) throw new Error(`browsermcp: part ${index} of ${id} is not parked in this document`);
  entry.parts[index] = undefined;
  if (--entry.left === 0) parked.delete(id);
  return part;
}
