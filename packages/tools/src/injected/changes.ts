/**
 * A count of what can change what the snapshot shows, so that a walk of a page that has not changed since the last
 * one is skipped (agents run navigate → snapshot → click loops, and ask for a snapshot of the page they were just
 * shown). It counts DOM mutations, in the document and in each shadow root the walk enters, and the events that change
 * a snapshot without one: focus, input, a toggled <details>, the end of an animation or transition, the pointer
 * moving (hover styles), a resize (media queries). A value set by a script fires nothing: the walk keeps the form
 * controls it saw and compares them before it reuses anything (see walk.ts). What changed is also handed to
 * walk-cache.ts, which keeps the parts of the last walk that still hold.
 */

import { noteEvent, noteEverything, noteMutations } from './walk-cache.js';

const OPTIONS: MutationObserverInit = { subtree: true, childList: true, attributes: true, characterData: true };
// Mouse boundary events too, should the hover move with no pointer event.
const EVENTS = ['focusin', 'focusout', 'input', 'change', 'toggle', 'animationend', 'transitionend', 'pointerover', 'pointerout', 'mouseover', 'mouseout'];

let version = 0;
let observer: MutationObserver | undefined;
/** The document element when the listeners were added: `document.open()` replaces it and erases every listener. */
let watchedRoot: Element | null = null;
const watchedRoots = new WeakSet<ShadowRoot>();
const onMutations = (records: MutationRecord[]) => {
  version++;
  noteMutations(records);
};
const onEvent = (event: Event) => {
  version++;
  noteEvent(event.type, event.target);
};

function watch(): void {
  observer ??= new MutationObserver(onMutations);
  observer.observe(document, OPTIONS);
  // Capture on the document also hears events that do not bubble (toggle, focus).
  for (const type of EVENTS) document.addEventListener(type, onEvent, { capture: true, passive: true });
  window.addEventListener('resize', onEvent, { passive: true });
  watchedRoot = document.documentElement;
}

/** How many changes this document has seen; starts watching on the first call. */
export function changeCount(): number {
  if (!observer) watch();
  else if (document.documentElement !== watchedRoot) {
    // Written anew with document.open() (as puppeteer's setContent does): same window, listeners gone.
    watch();
    version++;
    noteEverything();
  }
  return version;
}

/** Mutations made since the observer last reported (in the current task): counted, and handed to the caller. */
export function takeMutations(): MutationRecord[] {
  const records = observer?.takeRecords() ?? [];
  if (records.length) version++;
  return records;
}

/** A shadow root's mutations do not reach an observer of the document: the walk adds each one it enters. */
export function watchShadowRoot(root: ShadowRoot): void {
  if (!observer || watchedRoots.has(root)) return;
  watchedRoots.add(root);
  observer.observe(root, OPTIONS);
}

/** A random id of this document: a token from another document (after a navigation) never matches. */
export const documentId = Math.random().toString(36).slice(2);
