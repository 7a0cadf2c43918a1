import type { SessionRouter } from '@browsermcp/daemon';
import { usesFiles, type ToolResult } from '@browsermcp/tools';
import { listedState } from '@browsermcp/daemon';
import type { Backend, KeptStateInfo, OpenSessionOptions } from '../backend.js';
import { CallWaits } from './call-waits.js';
import { SessionFilesRegistry } from './session-files.js';
import { SessionStates } from './session-states.js';

/**
 * A daemon in this process (its router), for the launched browser and the person's: MCP sessions open daemon sessions
 * (or take up a kept state), calls dispatch through the router, and what a call waits for is heard from its events.
 * Subclasses say how a daemon session opens on their browser.
 */
export abstract class RouterBackend implements Backend {
  abstract readonly mode: Backend['mode'];
  private readonly waiting = new CallWaits();
  private readonly states: SessionStates;
  /** What each MCP session listens to on its daemon session, stopped when it closes. */
  private readonly listening = new Map<string, Array<() => void>>();

  protected constructor(
    keepBrowserStateMs: number | undefined,
    protected readonly files = new SessionFilesRegistry(),
  ) {
    this.states = new SessionStates(() => this.router, keepBrowserStateMs);
  }

  protected abstract get router(): SessionRouter;

  /** Opens the daemon session `id` for a client on this backend's browser (`browser`: what beforeOpen found). */
  protected abstract openDaemonSession(id: string, options: OpenSessionOptions, browser: string | undefined): Promise<void>;

  /** Listeners an MCP session adds to its daemon session (beyond what it waits for); stopped when it closes. */
  protected listen(_sessionId: string, _daemonSessionId: string): Array<() => void> {
    return [];
  }

  /** Resolves when the backend can open sessions, with the browser to open them on when it has a choice. */
  protected async beforeOpen(): Promise<string | undefined> {
    return undefined;
  }

  async openSession(sessionId: string, options: OpenSessionOptions = {}): Promise<void> {
    const browser = await this.beforeOpen();
    const { roots, workspace, owner } = options;
    const caller = options.caller ?? owner;
    const open = async (id: string) => {
      await this.files.opening(id, { roots, workspace }, caller, () => this.openDaemonSession(id, options, browser));
      // However it ends (closed with its client, or a kept state that expired), what it knew of files goes with it.
      this.router.onSessionClosed(id, () => this.files.delete(id));
    };
    await this.states.open(sessionId, owner, open, options.keepMs, options.state);
    const daemonSessionId = this.states.daemonSession(sessionId);
    if ((roots || workspace) && daemonSessionId !== sessionId) this.files.provide(daemonSessionId, { roots, workspace });
    this.listening.set(sessionId, [this.waiting.watch(this.router, daemonSessionId), ...this.listen(sessionId, daemonSessionId)]);
  }

  async callTool(sessionId: string, name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    const id = this.states.daemonSession(sessionId);
    // A call that reads or saves files gets its client's folders with it: asked here (roots/list), never by the
    // daemon in the middle of the call.
    const folders = usesFiles(name, args) ? await this.files.folders(id) : undefined;
    try {
      return await this.router.callTool(id, { name, payload: args, ...(signal ? { signal } : {}), ...(folders ? { folders } : {}) });
    } finally {
      this.waiting.done(id);
    }
  }

  waitingFor(sessionId: string): string | undefined {
    return this.waiting.of(this.states.daemonSession(sessionId));
  }

  async closeSession(sessionId: string): Promise<void> {
    for (const stop of this.listening.get(sessionId) ?? []) stop();
    this.listening.delete(sessionId);
    this.waiting.done(this.states.daemonSession(sessionId));
    await this.states.close(sessionId, (id) => {
      this.files.delete(id);
      return this.router.closeSession(id);
    });
  }

  async listStates(principal: string): Promise<KeptStateInfo[]> {
    return (await this.router.states.of(principal)).flatMap((s) => listedState(s) ?? []);
  }

  closeState(owner: string): Promise<boolean> {
    return this.router.states.close(owner);
  }

  abstract browserConnected(): boolean;
  abstract close(): Promise<void>;
}
