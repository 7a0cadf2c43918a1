/** Whitespace runs as one space, trimmed: how text reads on the page. */
export const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** At most `n` characters, with an ellipsis where it was cut. */
export const clip = (s: string, n = 120): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
