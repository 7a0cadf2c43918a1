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
