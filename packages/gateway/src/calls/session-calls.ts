import { ProtocolErrorCode, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { ToolResult } from '@browsermcp/tools';
import type { Backend } from '../backend.js';
import { ProtocolError } from '../errors.js';
import type { CallRoute } from '../mcp-server.js';
import { ClientRoots, type RootsPolicy } from '../roots.js';
import { isStateTool, type BrowserStates } from './browser-states.js';

/**
 * A 2025 session's calls (Streamable HTTP with Mcp-Session-Id, legacy SSE, stdio after initialize): they go to the
 * session's own daemon session, opened once the handshake completes (or by the first call, when that open failed),
 * except those that name a browser state handle (`browser`), which run in that state as in the stateless era.
 */
export class SessionCalls implements CallRoute {
  private ready: Promise<void> | undefined;
  private readonly roots: ClientRoots;
  /** The session a call naming a browser state runs in, while it runs. */
  private inState: string | undefined;

  constructor(
    private readonly server: Server,
    private readonly options: {
      /** The session's id, once the transport has one. */
      sessionId: () => string | undefined;
      backend: Backend;
      /** The caller's browser states, for the state tools and calls that name one. */
      states: BrowserStates;
      roots: RootsPolicy;
      /** Opens the session's daemon session, with the client's name and roots. */
      open: (clientName: string | undefined, roots: () => Promise<string[]>, workspace: () => Promise<string | undefined>) => Promise<void>;
    },
  ) {
    this.roots = new ClientRoots(server, options.roots);
  }

  get label(): string {
    return this.options.sessionId() ?? 'opening';
  }

  initialized(): void {
    void this.ensureReady().catch(() => undefined);
  }

  // A failed open (no browser connected yet) is tried again by the next tool call.
  private ensureReady(): Promise<void> {
    return (this.ready ??= this.options
      .open(
        this.server.getClientVersion()?.name,
        () => this.roots.get(),
        () => this.roots.workspace(),
      )
      .catch((err: unknown) => {
        this.ready = undefined;
        throw err;
      }));
  }

  async run(name: string, args: Record<string, unknown>, ctx: ServerContext): Promise<ToolResult> {
    const sessionId = this.options.sessionId();
    if (!sessionId) throw new ProtocolError(ProtocolErrorCode.InternalError, 'This MCP session has no id yet.');
    const { browser, ...rest } = args;
    if (isStateTool(name) || browser !== undefined) {
      const call = {
        clientName: this.server.getClientVersion()?.name,
        roots: () => this.roots.get(),
        workspace: () => this.roots.workspace(),
        signal: ctx.mcpReq.signal,
        running: (id: string | undefined) => {
          this.inState = id;
        },
      };
      return this.roots.during(ctx.mcpReq, () =>
        isStateTool(name) ? this.options.states.runStateTool(name, args, call) : this.options.states.run(String(browser), name, rest, call),
      );
    }
    await this.ensureReady();
    return this.roots.during(ctx.mcpReq, () => this.options.backend.callTool(sessionId, name, rest, ctx.mcpReq.signal));
  }

  waitingFor(): string | undefined {
    const sessionId = this.inState ?? this.options.sessionId();
    return sessionId ? this.options.backend.waitingFor?.(sessionId) : undefined;
  }
}
