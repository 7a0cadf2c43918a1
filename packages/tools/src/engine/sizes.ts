// Bounds in characters (what an answer and the gateway's memory carry), beside the bounds in entries: a page decides
// how long each line it logs is, and how large a value it returns.

/** The longest console message a tab keeps: longer ones are cut, with a note saying how long they were. */
export const MAX_CONSOLE_ENTRY_CHARS = 4_096;
/** All console messages a tab keeps, together: the oldest go first past it (as past --max-log-entries). */
export const MAX_CONSOLE_RING_CHARS = 1_000_000;
/** The longest answer text a tool gives (a result, a list, a request's details); `filename` saves the whole. */
export const MAX_ANSWER_CHARS = 100_000;

/** `text` cut to `max` characters, saying how much was left out and where the rest can be had. */
export function cutText(text: string, max: number, rest: string): string {
  if (text.length <= max) return text;
  return `${copyOf(text.slice(0, max))}\n… (cut at ${max.toLocaleString('en')} of ${text.length.toLocaleString('en')} characters${rest ? `; ${rest}` : ''})`;
}

/**
 * A string of its own: V8 makes a slice a view of the string it came from, which then stays in memory as long as
 * the slice does (a tab's console kept 4 KB of each 512 KB line, and held 120 MB). Encoding and decoding copies.
 */
function copyOf(slice: string): string {
  return new TextDecoder().decode(new TextEncoder().encode(slice));
}
