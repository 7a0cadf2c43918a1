import { StateNotFoundError, type SessionRouter } from '@browsermcp/daemon';
import type { KeptStateOptions } from '../backend.js';

/**
 * Which daemon session each MCP session drives. Without a kept state, its own. With one (--keep-browser-state, and
 * every 2026-07-28 request), the sessions of one owner take up the owner's kept state (the router's state handle):
 * one daemon session, whose browser context and tabs outlive each MCP session for the time given, then close.
 */
export class SessionStates {
  private readonly held = new Map<string, { owner: string; handle: string; daemonSessionId: string }>();

  constructor(
    private readonly router: () => SessionRouter,
    /** --keep-browser-state, ms: how long each owner's state is kept unless a call says otherwise. */
    private readonly keepBrowserStateMs: number | undefined,
  ) {}

  /** The daemon session an MCP session drives. */
  daemonSession(sessionId: string): string {
    return this.held.get(sessionId)?.daemonSessionId ?? sessionId;
  }

  /**
   * Opens the MCP session: on its owner's kept state if there is one, else on a new daemon session (`open`) kept as
   * the owner's state for `keepMs` (default: --keep-browser-state; none: the session is its own).
   */
  async open(
    sessionId: string,
    owner: string | undefined,
    open: (daemonSessionId: string) => Promise<void>,
    keepMs = this.keepBrowserStateMs,
    kept: KeptStateOptions = {},
  ): Promise<void> {
    if (keepMs === undefined || owner === undefined) return open(sessionId);
    const router = this.router();
    if (await this.take(owner, sessionId)) return;
    if (kept.existing) throw new StateNotFoundError();
    // Room for one more before its session opens (--max-browser-states): a refused one leaves nothing open.
    await router.states.checkRoom();
    await open(sessionId);
    const state = await router.states.keep(owner, sessionId, keepMs, { id: sessionId }, { principal: kept.principal, name: kept.name });
    if (state) {
      this.held.set(sessionId, { owner, handle: state.handle, daemonSessionId: sessionId });
      return;
    }
    // Another session of the owner kept one first: this one joins it, so the owner's calls all see one browser state.
    await router.closeSession(sessionId).catch(() => undefined);
    if (!(await this.take(owner, sessionId))) await open(sessionId);
  }

  private async take(owner: string, sessionId: string): Promise<boolean> {
    const kept = await this.router().states.take(owner, { id: sessionId });
    if (kept) this.held.set(sessionId, { owner, handle: kept.handle, daemonSessionId: kept.sessionId });
    return kept !== undefined;
  }

  /** Ends the MCP session: its daemon session closes (`close`), unless it is a kept state, which waits for the next. */
  async close(sessionId: string, close: (daemonSessionId: string) => Promise<unknown>): Promise<void> {
    const held = this.held.get(sessionId);
    this.held.delete(sessionId);
    if (!held) {
      await close(sessionId);
      return;
    }
    await this.router().states.release(held.owner, held.handle, sessionId);
  }
}
