/**
 * Refs: each element the snapshot names gets `e<N>` once per document and keeps it. N counts on from `seed` (the
 * tab's next free number) so that refs stay unique across the documents a tab shows.
 */
interface RefState {
  ids: WeakMap<Element, string>;
  els: Map<string, WeakRef<Element>>;
  next: number;
}

let state: RefState | undefined;

/** This document's refs; `seed` is where numbering starts if it has none yet. */
export function refState(seed: number): RefState {
  state ??= { ids: new WeakMap(), els: new Map(), next: seed };
  return state;
}

/** The next ref number this document would hand out. */
export function nextRef(seed: number): number {
  return refState(seed).next;
}

/** The ref of an element, handing out the next one if it has none. */
export function refFor(el: Element, seed: number): string {
  const st = refState(seed);
  let ref = st.ids.get(el);
  if (!ref) {
    ref = `e${st.next++}`;
    st.ids.set(el, ref);
    st.els.set(ref, new WeakRef(el));
  }
  return ref;
}

/** The element behind a ref, or null when the ref is unknown here or its element left the page. */
export function elementForRef(ref: string): Element | null {
  const el = state?.els.get(ref)?.deref();
  return el?.isConnected ? el : null;
}
