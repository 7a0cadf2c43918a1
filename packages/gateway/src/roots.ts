import { fileURLToPath } from 'node:url';
import type { Server, ServerContext } from '@modelcontextprotocol/server';

/**
 * Which folders count as a session's own, where the model may name input files (uploads, storage states):
 * - `client-or-cwd` (stdio, and HTTP on loopback): the client's MCP roots, or the gateway's working directory when it
 *   declares none — the client runs on this machine, so its paths mean something (as with @playwright/mcp);
 * - `none` (HTTP reachable from elsewhere): a remote client's paths name nothing on this machine.
 */
export type RootsPolicy = 'client-or-cwd' | 'none';

/** How long the client may take to answer roots/list before its roots count as none for this call. */
const ROOTS_TIMEOUT_MS = 5_000;

/** A call's way to ask its client something on the call's own stream (the MCP SDK's request context). */
type CallExtra = Pick<ServerContext['mcpReq'], 'send'>;

/**
 * A session's roots for the daemon's file policy: asked from the client the first time a file is needed, kept until
 * the client says they changed (notifications/roots/list_changed). Local paths only (file: URIs).
 */
export class ClientRoots {
  private cached: Promise<string[]> | undefined;
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
  get(): Promise<string[]> {
    const fallback = this.policy === 'client-or-cwd' ? [this.cwd] : [];
    if (this.policy === 'none' || !this.server.getClientCapabilities()?.roots) return Promise.resolve(fallback);
    this.cached ??= this.ask().then(
      (roots) => (roots.length ? roots : fallback),
      () => {
        // Not kept: a client that did not answer this time may answer the next.
        this.cached = undefined;
        return fallback;
      },
    );
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
