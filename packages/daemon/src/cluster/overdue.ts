/**
 * Of `ids`, those that have been failing `fine` for at least `gracePeriodMs` (`since` keeps when each started failing and
 * forgets ids that are fine again or gone); each is returned once.
 */
export function overdue(
  since: Map<string, number>,
  ids: readonly string[],
  fine: (id: string) => boolean,
  now: number,
  gracePeriodMs: number,
): Map<string, number> {
  const wanted = new Set(ids);
  for (const id of [...since.keys()]) if (!wanted.has(id)) since.delete(id);
  const due = new Map<string, number>();
  for (const id of wanted) {
    if (fine(id)) {
      since.delete(id);
      continue;
    }
    const start = since.get(id) ?? now;
    since.set(id, start);
    if (now - start >= gracePeriodMs) {
      since.delete(id);
      due.set(id, start);
    }
  }
  return due;
}
