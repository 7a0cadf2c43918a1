/**
 * The newest `max` lines, after one that counts the rest (and `gone` more that were dropped before): how a long list
 * stays short in an answer. `notShown` words the count line.
 */
export function newestLines(lines: readonly string[], max: number, notShown: (count: string) => string, gone = 0): string[] {
  const shown = lines.length > max ? lines.slice(lines.length - max) : [...lines];
  const more = lines.length - shown.length + gone;
  return more ? [notShown(more.toLocaleString('en')), ...shown] : shown;
}
