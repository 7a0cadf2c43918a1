/**
 * A duration as a person reads it in an error message: "800 ms", "60 s", "5 minutes", "4 min 12 s", "90 days".
 * Seconds are rounded up, so a grace period with 0.4 s left never reads "0 s".
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))} ms`;
  const seconds = Math.ceil(ms / 1000);
  // Whole days from two on (a token's lifetime) read as days rather than thousands of minutes.
  if (seconds >= 2 * 86_400 && seconds % 86_400 === 0) return `${seconds / 86_400} days`;
  // Up to two minutes, seconds read better ("90 s" rather than "1 min 30 s"); the default timeout reads "60 s".
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest === 0 ? `${minutes} minutes` : `${minutes} min ${rest} s`;
}
