/**
 * --secrets: the forms in which a page can hand a secret's value back besides the value itself (SECURITY.md lists
 * what still gets out): base64 (standard and URL-safe, also inside a longer base64 text), hex, percent-encoding, and
 * its characters with separators between them ("h-u-n-t-e-r-2", "h u n t e r 2"). Each form becomes a pattern that
 * finds it in an answer; longest secrets first, so a secret that contains another is replaced whole.
 */

/**
 * Base64 shorter than this, from inside a longer base64 text, is not matched: it would match by chance. A secret of 8
 * bytes or more always leaves this much, whatever its offset.
 */
const MIN_EMBEDDED_BASE64 = 8;
/** A secret shorter than this is matched as written only: its encodings would match ordinary text by chance. */
const MIN_ENCODED = 4;
/** Between two characters of a secret written apart: up to three of these. */
const SEPARATOR = '[\\s\\-_.,:;|/\\\\*+]{1,3}';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function bytesOf(value: string): Uint8Array {
  return new TextEncoder().encode(value);
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * The base64 of the secret's bytes wherever they start in a longer text (byte offsets 0, 1, 2 within a group of three):
 * the characters that depend on the secret alone, in standard and URL-safe alphabets, padding left off.
 */
function base64Forms(bytes: Uint8Array): string[] {
  const forms = new Set<string>();
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    const encoded = base64(padded).replace(/=+$/, '');
    // The first group holds the shift's bytes too; the last holds bytes that follow the secret (unknown).
    const start = shift === 0 ? 0 : 4;
    const whole = (shift + bytes.length) % 3 === 0;
    const end = whole ? encoded.length : Math.floor((shift + bytes.length) / 3) * 4;
    const stable = encoded.slice(start, end);
    if (shift === 0) forms.add(encoded);
    if (stable.length >= MIN_EMBEDDED_BASE64) forms.add(stable);
  }
  return [...forms].flatMap((f) => [f, f.replace(/\+/g, '-').replace(/\//g, '_')]);
}

function hexForms(bytes: Uint8Array): string[] {
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return [hex, hex.toUpperCase()];
}

/** Every character percent-encoded, in either case, and encodeURIComponent's and a form's (`+` for a space) spellings. */
function percentForms(value: string, bytes: Uint8Array): string[] {
  const all = [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  const component = encodeURIComponent(value);
  return [all, all.toUpperCase(), component, component.replace(/%20/g, '+')];
}

/** A pattern matching any form of `value` in an answer (case-sensitive: hex and percent forms list both cases). */
export function secretPattern(value: string): RegExp {
  const bytes = bytesOf(value);
  const chars = [...value];
  const encoded = chars.length >= MIN_ENCODED;
  const literal = [value, ...(encoded ? [...base64Forms(bytes), ...hexForms(bytes), ...percentForms(value, bytes)] : [])];
  const apart = encoded ? [chars.map(escapeRegExp).join(SEPARATOR)] : [];
  // Longest first: a form that contains another is replaced whole.
  const alternatives = [...new Set(literal)].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp([...alternatives, ...apart].join('|'), 'g');
}

/** `text` with every form of each secret replaced by `<secret>NAME</secret>`, in the order given (longest first). */
export function redactSecretForms(text: string, secrets: ReadonlyArray<readonly [name: string, pattern: RegExp]>): string {
  return secrets.reduce((t, [name, pattern]) => t.replace(pattern, `<secret>${name}</secret>`), text);
}

// The patterns of a set of secrets, made once per set (the config object): longest first, so a secret that contains
// another is replaced whole.
const patternCache = new WeakMap<Readonly<Record<string, string>>, Array<[string, RegExp]>>();

/** Each secret's name and the pattern of its forms (secretPattern), longest secret first. */
export function secretPatterns(secrets: Readonly<Record<string, string>>): Array<[name: string, pattern: RegExp]> {
  let patterns = patternCache.get(secrets);
  if (!patterns) {
    patterns = Object.entries(secrets)
      .filter(([, value]) => value !== '')
      .sort((a, b) => b[1].length - a[1].length)
      .map(([name, value]) => [name, secretPattern(value)]);
    patternCache.set(secrets, patterns);
  }
  return patterns;
}
