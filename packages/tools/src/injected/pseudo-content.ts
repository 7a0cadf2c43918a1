import { collapse } from './util.js';

/**
 * Text a page shows through CSS generated content (`::before`/`::after { content: … }`), which the accessible-name
 * computation counts as content: an editor's placeholder (`p::before { content: attr(data-placeholder) }`), a close
 * button's "×". Read only where an element would otherwise have no name: a computed style per pseudo-element is too
 * dear for every element of a page.
 */

/** Icon fonts draw their glyphs from the Private Use Area: a glyph there names nothing. */
const PRIVATE_USE = /[\uE000-\uF8FF]|[\u{F0000}-\u{FFFFD}]|[\u{100000}-\u{10FFFD}]/gu;
const TOKEN = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([\w-]+)\s*\)/g;

/** A CSS string's escapes as the characters they stand for (`\"`, `\00d7 `). */
function cssUnescape(s: string): string {
  return s.replace(/\\([0-9a-fA-F]{1,6})\s?|\\(.)/g, (_, hex: string | undefined, c: string | undefined) =>
    hex ? String.fromCodePoint(parseInt(hex, 16)) : (c ?? ''),
  );
}

/** The text of a computed `content` value for `el`: its strings and `attr()`s, in order (counters, images: nothing). */
function contentText(el: Element, content: string): string {
  if (content === 'none' || content === 'normal' || content === '') return '';
  let out = '';
  for (const m of content.matchAll(TOKEN)) {
    out += m[3] !== undefined ? (el.getAttribute(m[3]) ?? '') : cssUnescape(m[1] ?? m[2] ?? '');
  }
  return out.replace(PRIVATE_USE, '');
}

/** What `el`'s `::before` and `::after` show. */
export function pseudoText(el: Element): string {
  const before = contentText(el, getComputedStyle(el, '::before').content);
  const after = contentText(el, getComputedStyle(el, '::after').content);
  return collapse(`${before} ${after}`);
}

/**
 * The name an element without one takes from generated content: its own, or, for an empty editor, the placeholder
 * its first line shows (rich-text editors draw it on their first paragraph, a few levels down).
 */
export function generatedName(el: Element, editor: boolean): string {
  const own = pseudoText(el);
  if (own || !editor) return own;
  for (let line = el.firstElementChild, depth = 0; line && depth < 3; line = line.firstElementChild, depth++) {
    const text = pseudoText(line);
    if (text) return text;
  }
  return '';
}
