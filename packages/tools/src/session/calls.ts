import { runCall, type StopReason } from './dispatch.js';
import type { ToolResult } from './response.js';
import type { ToolSession } from './session.js';
import type { Tool } from './tool.js';

const MAX_STOPPED_EARLY = 1000;

/**
 * The one adapter from a host's command to a tool call, for every host (the daemon's local executor, the extension):
 * each call runs under its command's id, so a cancel or a timeout stops it the same way everywhere.
 */
export class ToolCalls {
  private readonly running = new Map<string, { controller: AbortController; session: ToolSession; done: Promise<unknown> }>();
  /**
   * Per session, a stopped call still freeing its tab: the session's next call starts after it (briefly: see
   * rescueTab), so that it finds the tab freed and hears what was done.
   */
  private readonly stopping = new WeakMap<ToolSession, Promise<unknown>>();
  /** Stops that came while their call still waited to start (a browser launching, the person approving). */
  private readonly stoppedEarly = new Map<string, StopReason>();

  /**
   * Runs a call of one of `tools` (the host's capabilities); throws only UnknownToolError (every other failure is an
   * `isError` result).
   */
  async run(id: string, session: ToolSession, name: string, args: unknown, tools: readonly Tool[]): Promise<ToolResult> {
    const controller = new AbortController();
    const early = this.stoppedEarly.get(id);
    if (early) {
      this.stoppedEarly.delete(id);
      controller.abort(early);
    }
    await this.stopping.get(session);
    const done = runCall(session, name, args ?? {}, tools, controller.signal);
    this.running.set(id, { controller, session, done: done.catch(() => undefined) });
    try {
      return await done;
    } finally {
      this.running.delete(id);
    }
  }

  /**
   * Stops a running call (its answer comes at once, its tab freed); one that has not started yet never does. False
   * if it is not running.
   */
  stop(id: string, reason: StopReason): boolean {
    const call = this.running.get(id);
    if (call) {
      call.controller.abort(reason);
      this.stopping.set(call.session, call.done);
      return true;
    }
    this.stoppedEarly.set(id, reason);
    // Bounded: a stop for a call that never comes (it failed before the tools) is forgotten in time.
    if (this.stoppedEarly.size > MAX_STOPPED_EARLY) this.stoppedEarly.delete(this.stoppedEarly.keys().next().value!);
    return false;
  }
}
