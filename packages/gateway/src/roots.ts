import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { inside } from '@browsermcp/daemon';
import { fileURLToPath } from 'node:url';
import type { Server, ServerContext } from '@modelcontextprotocol/server';

/**
 * Which folders count as a session's own, where the model may name input files (uploads, storage states), besides
 * --file-roots and its own output folder (SECURITY.md, "Files a tool can never read"):
 * - `client`: the MCP roots the client declares count anywhere (stdio: the client owns this gateway; HTTP with
 *   --trust-client-roots), only inside these folders (HTTP: --file-roots; a client's word is no grant), or not at
 *   all (HTTP reachable from elsewhere: a remote client's paths name nothing on this machine);
 * - `cwd`: the gateway's working directory counts while the client declares none, where one person owns the gateway
 *   (stdio, or HTTP on loopback with a single API key).
 */
export interface RootsPolicy {
  client: 'anywhere' | 'none' | { within: readonly string[] };
  cwd: boolean;
  /**
   * Where a name the model gives for a saved file lands, as with @playwright/mcp: the first root the client declared
   * that counts (`roots`), else the working directory too (`roots-or-cwd`: stdio, whose working directory is the
   * client's); `none`: the output directory, where the client's folders are not its own to write in.
   */
  saves: 'roots-or-cwd' | 'roots' | 'none';
}

/** Where a folder really is (through links), or the folder as named when it does not exist. */
function real(path: string): string {
  try {
    return realpathSync(resolve(path));
  } catch {
    return resolve(path);
  }
}

/** The roots a client declared that the policy honours, by where they really are (a link inside --file-roots to / is not inside it). */
export function honouredRoots(policy: RootsPolicy, declared: readonly string[]): string[] {
  const { client } = policy;
  if (client === 'none') return [];
  if (client === 'anywhere') return [...declared];
  const within = client.within.map(real);
  return declared.filter((root) => within.some((w) => inside(w, real(root))));
}

/** A session's roots: those of the client's the policy honours, else the working directory where it counts. */
export function rootsFor(policy: RootsPolicy, declared: readonly string[] | undefined, cwd: string = process.cwd()): string[] {
  const fallback = policy.cwd ? [cwd] : [];
  if (declared === undefined || declared.length === 0) return fallback;
  return honouredRoots(policy, declared);
}

/** A session's workspace, where names the model gives for saved files land (undefined: the output directory). */
export function workspaceFor(policy: RootsPolicy, declared: readonly string[] | undefined, cwd: string = process.cwd()): string | undefined {
  if (policy.saves === 'none') return undefined;
  const own = declared?.length ? honouredRoots(policy, declared) : [];
  return own[0] ?? (policy.saves === 'roots-or-cwd' ? cwd : undefined);
}

/** How long the client may take to answer roots/list before its roots count as none for this call. */
const ROOTS_TIMEOUT_MS = 5_000;

/** A call's way to ask its client something on the call's own stream (the MCP SDK's request context). */
type CallExtra = Pick<ServerContext['mcpReq'], 'send'>;

/**
 * A session's roots for the daemon's file policy: asked from the client the first time a file is needed, kept until
 * the client says they changed (notifications/roots/list_changed). Local paths only (file: URIs).
 */
export class ClientRoots {
  /** The roots the client declared (undefined: none, or it cannot say). */
  private cached: Promise<string[] | undefined> | undefined;
  /** Calls being served: a roots/list sent while one runs travels on its response stream (Streamable HTTP). */
  private readonly calls = new Set<CallExtra>();

  constructor(
    private readonly server: Server,
    private readonly policy: RootsPolicy,
    private readonly cwd: string = process.cwd(),
  ) {
    server.setNotificationHandler('notifications/roots/list_changed', async () => {
      this.cached = undefined;
    });
  }

  /** Runs `fn` as a call whose stream may carry a roots/list request. */
  async during<T>(call: CallExtra, fn: () => Promise<T>): Promise<T> {
    this.calls.add(call);
    try {
      return await fn();
    } finally {
      this.calls.delete(call);
    }
  }

  /** The session's roots as local paths. */
  async get(): Promise<string[]> {
    return rootsFor(this.policy, await this.declared(), this.cwd);
  }

  /** The session's workspace, where names the model gives for saved files land (see workspaceFor). */
  async workspace(): Promise<string | undefined> {
    // Checked before asking: where nothing is saved in the client's folders, the client need not be asked for them.
    if (this.policy.saves === 'none') return undefined;
    return workspaceFor(this.policy, await this.declared(), this.cwd);
  }

  private declared(): Promise<string[] | undefined> {
    if (this.policy.client === 'none' || !this.server.getClientCapabilities()?.roots) return Promise.resolve(undefined);
    this.cached ??= this.ask().catch(() => {
      // Not kept: a client that did not answer this time may answer the next.
      this.cached = undefined;
      return undefined;
    });
    return this.cached;
  }

  private async ask(): Promise<string[]> {
    const [call] = [...this.calls].slice(-1);
    const result = call
      ? await call.send({ method: 'roots/list' }, { timeout: ROOTS_TIMEOUT_MS })
      : await this.server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS });
    return result.roots.flatMap((root) => (root.uri.startsWith('file:') ? [fileURLToPath(root.uri)] : []));
  }
}
