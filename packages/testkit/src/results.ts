/** The text parts of an MCP tool result, joined: what a model reads. */
export function textOf(result: unknown): string {
  const r = result as { content: Array<{ type: string; text?: string }> };
  return r.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
}

/** The ref on the first snapshot line that contains `needle` and has one. */
export function refIn(snapshot: string, needle: string): string {
  const line = snapshot.split('\n').find((l) => l.includes(needle) && l.includes('[ref='));
  const ref = line && /\[ref=([^\]]+)\]/.exec(line)?.[1];
  if (!ref) throw new Error(`No ref for ${JSON.stringify(needle)} in snapshot:\n${snapshot}`);
  return ref;
}

/**
 * The requests that answers told were refused by an origin list, counted from their notes ("The page's request for
 * … was refused" is one, "3 requests from the pages were refused" three), each with the origin the note blames.
 */
export function refusedRequests(answers: string): { count: number; origins: string[] } {
  const notes = [
    ...answers.matchAll(
      /(?:The page's request for \S+ was|(\d+) requests from the pages were) refused(?: \(last: \S+\))?: (\S+) is blocked by the gateway's --blocked-origins\./g,
    ),
  ];
  return { count: notes.reduce((n, [, count]) => n + Number(count ?? 1), 0), origins: notes.map(([, , origin]) => origin!) };
}
