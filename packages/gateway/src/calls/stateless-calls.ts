import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { ToolResult } from '@browsermcp/tools';
import type { CallRoute } from '../mcp-server.js';
import type { RootsPolicy } from '../roots.js';
import { newSessionId } from '../sessions.js';
import { isStateTool, type BrowserStates } from './browser-states.js';

/**
 * A 2026-07-28 request's call: no session, so the call takes up a browser state of its caller (the one its `browser`
 * handle names, or its key's default) for the length of the call and leaves it for the next request, on this gateway
 * or another.
 */
export class StatelessCalls implements CallRoute {
  /** The session this request opened for its call, while it runs. */
  private sessionId: string | undefined;
  readonly label: string;

  constructor(
    private readonly server: Server,
    private readonly options: {
      /** The caller's states. */
      states: BrowserStates;
      /** What a running call waits for, by the session it runs in. */
      waitingFor: (sessionId: string) => string | undefined;
      roots: RootsPolicy;
      cwd?: string;
    },
  ) {
    this.label = `req:${newSessionId().slice(0, 8)}`;
  }

  async run(name: string, args: Record<string, unknown>, ctx: ServerContext): Promise<ToolResult> {
    // The client's roots arrive with the input-required round trip (not yet asked): the policy's own folders meanwhile.
    const roots = this.options.roots === 'client-or-cwd' ? [this.options.cwd ?? process.cwd()] : [];
    const call = {
      clientName: this.server.getClientVersion()?.name,
      roots: async () => roots,
      signal: ctx.mcpReq.signal,
      running: (id: string | undefined) => {
        this.sessionId = id;
      },
    };
    if (isStateTool(name)) return this.options.states.runStateTool(name, args, call);
    const { browser, ...rest } = args;
    return this.options.states.run(browser === undefined ? undefined : String(browser), name, rest, call);
  }

  waitingFor(): string | undefined {
    return this.sessionId ? this.options.waitingFor(this.sessionId) : undefined;
  }
}
