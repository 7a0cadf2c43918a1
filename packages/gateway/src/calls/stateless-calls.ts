import { fileURLToPath } from 'node:url';
import { inputRequired, inputResponse, type InputRequiredResult, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { usesFiles, type ToolResult } from '@browsermcp/tools';
import type { CallRoute } from '../mcp-server.js';
import { rootsFor, workspaceFor, type RootsPolicy } from '../roots.js';
import { newSessionId } from '../sessions.js';
import { isStateTool, type BrowserStates } from './browser-states.js';

/** A call's client folders: where its input files may come from, where names it gives for saved files land. */
interface Folders {
  roots: string[];
  workspace: string | undefined;
}

function asksInput(answer: Folders | InputRequiredResult): answer is InputRequiredResult {
  return !Array.isArray((answer as Partial<Folders>).roots);
}

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

  /** One record (--save-session) per browser state: the requests of one state read as one session. */
  recordLabel(args: Record<string, unknown>): string {
    return typeof args.browser === 'string' ? `state-${args.browser.slice(3, 11)}` : 'state-default';
  }

  async run(name: string, args: Record<string, unknown>, ctx: ServerContext): Promise<ToolResult | InputRequiredResult> {
    const folders = this.folders(name, args, ctx);
    if (asksInput(folders)) return folders;
    const call = {
      clientName: this.server.getClientVersion()?.name,
      roots: async () => folders.roots,
      workspace: async () => folders.workspace,
      signal: ctx.mcpReq.signal,
      running: (id: string | undefined) => {
        this.sessionId = id;
      },
    };
    if (isStateTool(name)) return this.options.states.runStateTool(name, args, call);
    const { browser, ...rest } = args;
    return this.options.states.run(browser === undefined ? undefined : String(browser), name, rest, call);
  }

  /**
   * Where the call's input files may come from and where names it gives for saved files land: a client that declares
   * roots is asked for them (the input-required round trip) when the call reads or saves files, as a 2025 session
   * asks with roots/list; which of them count, and whether the working directory does when it declares none, is the
   * gateway's RootsPolicy.
   */
  private folders(name: string, args: Record<string, unknown>, ctx: ServerContext): Folders | InputRequiredResult {
    const { roots: policy, cwd } = this.options;
    if (policy.client === 'none' || !this.server.getClientCapabilities()?.roots || !usesFiles(name, args)) {
      return { roots: rootsFor(policy, undefined, cwd), workspace: workspaceFor(policy, undefined, cwd) };
    }
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'roots');
    if (answer.kind !== 'roots') return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    const declared = answer.roots.flatMap((root) => (root.uri.startsWith('file:') ? [fileURLToPath(root.uri)] : []));
    return { roots: rootsFor(policy, declared, cwd), workspace: workspaceFor(policy, declared, cwd) };
  }

  waitingFor(): string | undefined {
    return this.sessionId ? this.options.waitingFor(this.sessionId) : undefined;
  }
}
