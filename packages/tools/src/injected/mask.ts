/**
 * --secrets in pictures: a field that holds a secret (or one of its encodings: the patterns of secret-forms.ts) is
 * painted over for the length of a capture, so a screenshot or a GIF frame never shows what the answers' text keeps
 * out. The field's own inline style is put back afterwards; its value is never touched.
 */

/** The fields painted over, with the inline style each had. */
const masked: Array<{ el: HTMLElement; style: string | null }> = [];

const MASK =
  'color: transparent !important; -webkit-text-fill-color: transparent !important; text-shadow: none !important; caret-color: transparent !important; background: #1f2328 !important;';

function* fieldsIn(root: Document | ShadowRoot): Generator<HTMLElement> {
  yield* root.querySelectorAll<HTMLElement>('input, textarea, [contenteditable]:not([contenteditable="false"])');
  for (const el of root.querySelectorAll('*')) if (el.shadowRoot) yield* fieldsIn(el.shadowRoot);
}

function shownText(el: HTMLElement): string {
  return el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ? el.value : (el.textContent ?? '');
}

/** Paints over every field of this document whose text matches a pattern (source, flags); returns how many. */
export function maskSecretFields(patterns: Array<[source: string, flags: string]>): number {
  unmaskSecretFields();
  const tests = patterns.map(([source, flags]) => new RegExp(source, flags.replace(/[gy]/g, '')));
  for (const el of fieldsIn(document)) {
    const text = shownText(el);
    if (!text || !tests.some((t) => t.test(text))) continue;
    const style = el.getAttribute('style');
    masked.push({ el, style });
    el.setAttribute('style', `${style ?? ''};${MASK}`);
  }
  return masked.length;
}

/** Gives the painted-over fields their own style back. */
export function unmaskSecretFields(): void {
  for (const { el, style } of masked.splice(0)) {
    if (style === null) el.removeAttribute('style');
    else el.setAttribute('style', style);
  }
}
