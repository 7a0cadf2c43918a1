import { chromeToLaunch, LocalExecutor, SessionRouter, type LocalExecutorOptions } from '@browsermcp/daemon';
import type { OpenSessionOptions } from '../backend.js';
import { RouterBackend } from './router-backend.js';

export interface EmbeddedBackendOptions extends LocalExecutorOptions {
  commandTimeoutMs?: number | undefined;
  gracePeriodMs?: number | undefined;
  /** --max-browser-states: most browser states kept at once. */
  maxBrowserStates?: number | undefined;
  /** --keep-browser-state: how long an owner's browser state outlives its last session, in ms. */
  keepBrowserStateMs?: number | undefined;
}

/** The daemon in-process: a router with the local executor (a launched browser, or one reached over CDP). */
export class EmbeddedBackend extends RouterBackend {
  readonly mode: 'launch' | 'cdp';
  readonly router: SessionRouter;
  readonly executor: LocalExecutor;
  private readonly ready: Promise<unknown>;
  /** The browser a launch would use, or why none: looked up once (the disk is not scanned on every /health). */
  private readonly launchable: ReturnType<typeof chromeToLaunch> | undefined;

  constructor(options: EmbeddedBackendOptions) {
    super(options.keepBrowserStateMs);
    this.router = new SessionRouter({
      defaultExecutorId: 'local',
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
      ...(options.gracePeriodMs !== undefined ? { gracePeriodMs: options.gracePeriodMs } : {}),
      ...(options.maxBrowserStates !== undefined ? { maxBrowserStates: options.maxBrowserStates } : {}),
    });
    this.executor = new LocalExecutor(this.router, { ...options, sessionOwner: this.files.owner });
    this.mode = options.cdpEndpoint ? 'cdp' : 'launch';
    this.launchable = options.cdpEndpoint ? undefined : chromeToLaunch(options.executablePath);
    this.ready = this.router.executorConnected(this.executor);
  }

  protected override async beforeOpen(): Promise<undefined> {
    await this.ready;
    return undefined;
  }

  protected async openDaemonSession(id: string, { clientName, caller, owner }: OpenSessionOptions): Promise<void> {
    // Its tabs count toward its key's memory (--max-key-memory), as the tabs of the key's other sessions and states.
    const account = caller ?? owner;
    await this.router.openSession(id, { ...(clientName ? { clientName } : {}), ...(account ? { account } : {}) });
  }

  browserConnected(): boolean {
    return this.executor.browser.connected;
  }

  browserProblem(): string | undefined {
    // A browser that runs has no problem, whatever was found at start (a Chrome installed since).
    if (!this.launchable || !('problem' in this.launchable) || this.browserConnected()) return undefined;
    return this.launchable.problem;
  }

  async close(): Promise<void> {
    await this.executor.close();
    await this.router.close();
  }
}
