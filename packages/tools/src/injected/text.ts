/** Reading the page's text as a person sees it, and waiting for text to come or go. */

/** Readable text of the page or an element (what a person sees, laid out). */
export function readableText(el: Element | null): string {
  const target = (el ?? document.body ?? document.documentElement) as HTMLElement;
  return (target.innerText ?? target.textContent ?? '').replace(/\n{3,}/g, '\n\n').trim();
}

function bodyHasText(text: string): boolean {
  return !!document.body && document.body.innerText.includes(text);
}

/**
 * Resolves true as soon as `text` is on the page (`present`) or gone from it (not `present`), checked at every DOM
 * change; false after `timeoutMs`.
 */
export function waitForText(text: string, present: boolean, timeoutMs: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (bodyHasText(text) === present) return resolve(true);
    const finish = (value: boolean) => {
      observer.disconnect();
      clearTimeout(timer);
      resolve(value);
    };
    const observer = new MutationObserver(() => {
      if (bodyHasText(text) === present) finish(true);
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const timer = setTimeout(() => finish(false), timeoutMs);
  });
}
