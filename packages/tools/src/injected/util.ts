/** JavaScript's `\s`: the characters `collapse` folds, exactly as the regular expression would. */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/**
 * Whitespace runs as one space, trimmed: how text reads on the page. The same as `s.replace(/\s+/g, ' ').trim()`,
 * written as one pass that returns the string itself when nothing needs folding: text nodes are the walk's bulk (a
 * big page's code blocks made the regular expression its most expensive step).
 */
export function collapse(s: string): string {
  const n = s.length;
  let i = 0;
  // The common case: no space at either end, and every space a single ' ' between words.
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 32 && c < 128) continue;
    if (!isSpace(c)) continue;
    if (c !== 32 || i === 0 || i === n - 1 || isSpace(s.charCodeAt(i + 1))) break;
  }
  if (i === n) return s;
  let out = '';
  let start = -1;
  for (let j = 0; j <= n; j++) {
    const space = j === n || isSpace(s.charCodeAt(j));
    if (!space) {
      if (start < 0) start = j;
    } else if (start >= 0) {
      out = out ? `${out} ${s.slice(start, j)}` : s.slice(start, j);
      start = -1;
    }
  }
  return out;
}

/** Whether `s` is whitespace only (as `collapse` reads it), or empty. */
export function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isSpace(s.charCodeAt(i))) return false;
  return true;
}

/** At most `n` characters, with an ellipsis where it was cut. */
export const clip = (s: string, n = 120): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * Whether an element keeps the words before and after it apart (as Playwright's snapshot and the accessible-name
 * rules read text): anything laid out other than inline, and a line break. `display: contents` has no box of its own.
 */
export function isBlock(el: Element, style: CSSStyleDeclaration = getComputedStyle(el)): boolean {
  if (el.tagName === 'BR') return true;
  const display = style.display;
  return display !== 'inline' && display !== 'contents';
}
