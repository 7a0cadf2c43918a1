import { LocalExecutor, SessionRouter, type LocalExecutorOptions } from '@browsermcp/daemon';
import type { ToolResult } from '@browsermcp/tools';

/** Where tool calls go: the embedded daemon by default, a remote daemon later. The gateway runs no browser code. */
export interface Backend {
  readonly mode: 'launch' | 'cdp' | 'extension' | 'remote';
  openSession(sessionId: string, clientName: string | undefined): Promise<void>;
  callTool(sessionId: string, name: string, args: unknown): Promise<ToolResult>;
  closeSession(sessionId: string): Promise<void>;
  browserConnected(): boolean;
  close(): Promise<void>;
}

export interface EmbeddedBackendOptions extends LocalExecutorOptions {
  commandTimeoutMs?: number | undefined;
  graceMs?: number | undefined;
}

/** The daemon in-process: a router with the local executor (a launched browser, or one reached over CDP). */
export class EmbeddedBackend implements Backend {
  readonly mode: 'launch' | 'cdp';
  readonly router: SessionRouter;
  readonly executor: LocalExecutor;
  private ready: Promise<unknown>;

  constructor(options: EmbeddedBackendOptions) {
    this.router = new SessionRouter({
      defaultExecutorId: 'local',
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
      ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
    });
    this.executor = new LocalExecutor(this.router, options);
    this.mode = options.cdpEndpoint ? 'cdp' : 'launch';
    this.ready = this.router.executorConnected(this.executor);
  }

  async openSession(sessionId: string, clientName: string | undefined): Promise<void> {
    await this.ready;
    await this.router.openSession(sessionId, clientName ? { clientName } : {});
  }

  async callTool(sessionId: string, name: string, args: unknown): Promise<ToolResult> {
    return (await this.router.dispatch(sessionId, { name, payload: args })) as ToolResult;
  }

  async closeSession(sessionId: string): Promise<void> {
    await this.router.closeSession(sessionId);
  }

  browserConnected(): boolean {
    return this.executor.browser.connected;
  }

  async close(): Promise<void> {
    await this.executor.close();
    await this.router.close();
  }
}
