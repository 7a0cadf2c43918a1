/**
 * How deep a JSON-RPC body may nest. MCP messages nest a handful of levels (a tool's arguments a few more); a body
 * 100,000 levels deep parses, then overflows the stack of the SDK's recursive checks (a 500). Checked without
 * recursion, so the check itself cannot overflow.
 */
export const MAX_JSON_DEPTH = 64;

/** What a body nested past it is told, on every transport. */
export const TOO_DEEP = `the JSON nests deeper than ${MAX_JSON_DEPTH} levels, which no MCP message does`;

/** Whether `value` nests arrays and objects deeper than `max` levels. */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
