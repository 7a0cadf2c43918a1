/**
 * A count of what can change what the snapshot shows, so that a walk of a page that has not changed since the last
 * one is skipped (agents run navigate → snapshot → click loops, and ask for a snapshot of the page they were just
 * shown). It counts DOM mutations, in the document and in each shadow root the walk enters, and the events that change
 * a snapshot without one: focus, input, a toggled <details>, the end of an animation or transition, the pointer
 * moving (hover styles), a resize (media queries). A value set by a script fires nothing: the walk keeps the form
 * controls it saw and compares them before it reuses anything (see walk.ts), and the style sheets (`sheetsKey`): a
 * rule added through the CSSOM changes no DOM either.
 */

const OPTIONS: MutationObserverInit = { subtree: true, childList: true, attributes: true, characterData: true };
const EVENTS = ['focusin', 'focusout', 'input', 'change', 'toggle', 'animationend', 'transitionend', 'pointerover', 'pointerout'];

let version = 0;
let observer: MutationObserver | undefined;
const watchedRoots = new WeakSet<ShadowRoot>();
const bump = () => {
  version++;
};

/** How many changes this document has seen; starts watching on the first call. */
export function changeCount(): number {
  if (!observer) {
    observer = new MutationObserver(bump);
    observer.observe(document, OPTIONS);
    // Capture on the document also hears events that do not bubble (toggle, focus).
    for (const type of EVENTS) document.addEventListener(type, bump, { capture: true, passive: true });
    window.addEventListener('resize', bump, { passive: true });
  }
  return version;
}

/** A number per style sheet object: a sheet replaced by another with as many rules is another sheet. */
const sheetIds = new WeakMap<CSSStyleSheet, number>();
let nextSheetId = 0;

/** A tree's style sheets: its own and those adopted by script. */
export function sheetsOf(root: Document | ShadowRoot): CSSStyleSheet[] {
  return [...Array.from(root.styleSheets), ...(root.adoptedStyleSheets ?? [])];
}

/**
 * A tree's style sheets as they stand: which, and how many rules each holds (a rule added or removed through the
 * CSSOM changes no DOM). A rule edited in place, or a constructed sheet's `replaceSync` to as many rules, is not seen.
 */
export function sheetsKey(root: Document | ShadowRoot = document): string {
  let key = '';
  for (const sheet of sheetsOf(root)) {
    let id = sheetIds.get(sheet);
    if (id === undefined) sheetIds.set(sheet, (id = nextSheetId++));
    let rules: number | string;
    try {
      rules = sheet.cssRules.length;
    } catch {
      rules = 'x';
    }
    key += `${id}:${rules}${sheet.disabled ? 'd' : ''}${sheet.media.mediaText};`;
  }
  return key;
}

/** A shadow root's mutations do not reach an observer of the document: the walk adds each one it enters. */
export function watchShadowRoot(root: ShadowRoot): void {
  if (!observer || watchedRoots.has(root)) return;
  watchedRoots.add(root);
  observer.observe(root, OPTIONS);
}

/** A random id of this document: a token from another document (after a navigation) never matches. */
export const documentId = Math.random().toString(36).slice(2);
