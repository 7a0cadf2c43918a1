/** Nearest-rank percentile (p in 0..100) of a non-empty sample. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export const median = (xs: readonly number[]): number => percentile(xs, 50);

/** Runs `fn` and returns how long it took in ms with its result. */
export async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const result = await fn();
  return [performance.now() - t0, result];
}
