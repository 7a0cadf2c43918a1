/**
 * Runs in the page (passed to `page.evaluate` with the installed script's key): the walk as the tools run it, the
 * last result used again where it answers `same`, then a walk of the page as it is, whose result is the last one for
 * the next call. Null where the script is not installed (a document no tool has walked yet).
 */
export function walkAgainAndWhole(key: string): { shown: string; walked: string; same: boolean } | null {
  type Result = { text: string; token?: string; same?: boolean };
  type Api = { walkPage(o: { seed: number; prefix: string; reuse?: string }): Result };
  const api = (window as unknown as Record<symbol, Api | undefined>)[Symbol.for(key)];
  if (!api) return null;
  const w = window as unknown as { lastWalk?: Result };
  const again = api.walkPage({ seed: 1, prefix: '', ...(w.lastWalk?.token ? { reuse: w.lastWalk.token } : {}) });
  const shown = again.same ? w.lastWalk!.text : again.text;
  const walked = api.walkPage({ seed: 1, prefix: '' });
  w.lastWalk = walked;
  return { shown, walked: walked.text, same: again.same === true };
}
