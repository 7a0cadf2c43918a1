// Proxy id mapping. Many remote clients share one daemon, and their JSON-RPC ids collide (every SDK client starts at
// 0), so the proxy rewrites each id as "<connectionId>:<id>" on the way in and restores it on the way out.
//
// Encoding, chosen so that unmapping gives back the id with its type:
//   number 5      →  "<connectionId>:5"      the documented form, with String(n) (canonical JSON number text)
//   string "5"    →  "<connectionId>:s:5"    strings carry an "s:" marker, so 5 and "5" never collide
//   string "a:b"  →  "<connectionId>:s:a:b"  everything after the marker is the id, colons included
// The connectionId ends at the first ":", which is why a connectionId must not contain one. Every mapped id has
// exactly one spelling: unmapId refuses non-canonical numbers ("c:05", "c:1.0"), so mapId(unmapId(x)) === x.
// -0 maps like 0 (JSON writes both as 0).
import type { JsonRpcId } from './jsonrpc';

/** String ids with these prefixes belong to the proxy itself (e.g. `authenticate` is sent with id "proxy:1"). */
export const RESERVED_ID_PREFIXES = ['proxy:', 'ext:'] as const;

const STRING_MARKER = 's:';
// "proxy" and "ext" as connectionIds would make mapped ids look reserved.
const RESERVED_CONNECTION_IDS: ReadonlySet<string> = new Set(RESERVED_ID_PREFIXES.map((p) => p.slice(0, -1)));

export interface MappedId {
  connectionId: string;
  id: JsonRpcId;
}

/**
 * How an id reached us: `direct` a plain number (an MCP client talking to us directly), `proxied` a mapped id,
 * `proxy-control` the proxy's own reserved ids, `plain` any other string (a client's own string id). Ids are only
 * strings, so this reads their shape: a client string id shaped like a mapped one ("a:5") reads as `proxied`.
 */
export type IdMode = 'direct' | 'proxied' | 'proxy-control' | 'plain';

/** Why `connectionId` cannot be used, or undefined if it can. */
function connectionIdProblem(connectionId: unknown): string | undefined {
  if (typeof connectionId !== 'string') return 'connectionId must be a string';
  if (connectionId === '') return 'connectionId must not be empty';
  if (connectionId.includes(':')) return `connectionId must not contain ":" (got ${JSON.stringify(connectionId)})`;
  if (RESERVED_CONNECTION_IDS.has(connectionId)) return `connectionId "${connectionId}" is reserved`;
  return undefined;
}

/** A non-empty string without ":" that is not "proxy" or "ext". */
export function isValidConnectionId(connectionId: unknown): connectionId is string {
  return connectionIdProblem(connectionId) === undefined;
}

/**
 * Maps a client's id into the proxy's id space (see the encoding above). Throws a TypeError for an invalid
 * connectionId or an id that is not a string or finite number. It does not refuse reserved ids: check those with
 * isReservedId before mapping, as a client must not send them.
 */
export function mapId(connectionId: string, id: JsonRpcId): string {
  const problem = connectionIdProblem(connectionId);
  if (problem !== undefined) throw new TypeError(problem);
  if (typeof id === 'string') return `${connectionId}:${STRING_MARKER}${id}`;
  if (typeof id === 'number' && Number.isFinite(id)) return `${connectionId}:${String(id)}`;
  throw new TypeError('id must be a string or a finite number');
}

/** Restores `{connectionId, id}` from a mapped id, or returns null for anything that is not one. */
export function unmapId(mapped: unknown): MappedId | null {
  if (typeof mapped !== 'string') return null;
  const colon = mapped.indexOf(':');
  if (colon === -1) return null;
  const connectionId = mapped.slice(0, colon);
  if (!isValidConnectionId(connectionId)) return null;
  const rest = mapped.slice(colon + 1);
  if (rest.startsWith(STRING_MARKER)) return { connectionId, id: rest.slice(STRING_MARKER.length) };
  // Only the canonical spelling counts: Number() also reads "", " 5", "0x10" and "1.0".
  const id = Number(rest);
  if (rest === '' || !Number.isFinite(id) || String(id) !== rest) return null;
  return { connectionId, id };
}

/** True for string ids starting with "proxy:" or "ext:"; a client that sends one is refused. */
export function isReservedId(id: unknown): boolean {
  return typeof id === 'string' && RESERVED_ID_PREFIXES.some((prefix) => id.startsWith(prefix));
}

/** The id of the proxy's own request number `sequence`, e.g. "proxy:1" for the first `authenticate`. */
export function proxyControlId(sequence: number): string {
  return `${RESERVED_ID_PREFIXES[0]}${sequence}`;
}

export function detectIdMode(id: JsonRpcId): IdMode {
  if (typeof id === 'number') return 'direct';
  if (isReservedId(id)) return 'proxy-control';
  if (unmapId(id) !== null) return 'proxied';
  return 'plain';
}
