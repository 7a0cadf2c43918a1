import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { ToolResult } from '@browsermcp/tools';
import type { Backend } from '../backend.js';
import type { CallRoute } from '../mcp-server.js';
import type { RootsPolicy } from '../roots.js';
import { newSessionId } from '../sessions.js';

/**
 * A 2026-07-28 request's call: no session, so the call takes up its caller's browser state (the kept state of its
 * key) for the length of the call and leaves it for the next request, on this gateway or another.
 */
export class StatelessCalls implements CallRoute {
  /** The session this request opened for its call, while it runs. */
  private sessionId: string | undefined;
  readonly label: string;

  constructor(
    private readonly server: Server,
    private readonly options: {
      backend: Backend;
      /** Whose state it is: a hash of the caller's key ("no-key" without auth, "stdio" over stdio). */
      owner: string;
      /** How long the state outlives its last request (ms). */
      keepMs: number;
      roots: RootsPolicy;
      cwd?: string;
    },
  ) {
    this.label = `req:${newSessionId().slice(0, 8)}`;
  }

  async run(name: string, args: Record<string, unknown>, ctx: ServerContext): Promise<ToolResult> {
    const { backend, owner, keepMs } = this.options;
    const id = newSessionId();
    this.sessionId = id;
    // The client's roots arrive with the input-required round trip (not yet asked): the policy's own folders meanwhile.
    const roots = this.options.roots === 'client-or-cwd' ? [this.options.cwd ?? process.cwd()] : [];
    await backend.openSession(id, { clientName: this.server.getClientVersion()?.name, roots: async () => roots, owner, keepMs });
    try {
      return await backend.callTool(id, name, args, ctx.mcpReq.signal);
    } finally {
      this.sessionId = undefined;
      await backend.closeSession(id).catch(() => undefined);
    }
  }

  waitingFor(): string | undefined {
    return this.sessionId ? this.options.backend.waitingFor?.(this.sessionId) : undefined;
  }
}
