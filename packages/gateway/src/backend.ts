import { chromeToLaunch, LocalExecutor, SessionRouter, startDaemon, type LocalExecutorOptions, type RunningDaemon } from '@browsermcp/daemon';
import { ExtensionEvents, formatPairingCode, parseWaitingForPerson, type SessionSettings } from '@browsermcp/protocol';
import type { ToolResult } from '@browsermcp/tools';
import { agentIdentity } from './agent-identity.js';

/** Where tool calls go: the embedded daemon by default, a remote daemon later. The gateway runs no browser code. */
export interface Backend {
  readonly mode: 'launch' | 'cdp' | 'extension' | 'remote';
  /**
   * `roots`: the session's client roots, for where its input files may come from (unused by a remote daemon).
   * `owner`: who opened it (a hash of its key); with --keep-browser-state, sessions of one owner share a state.
   */
  openSession(sessionId: string, clientName: string | undefined, roots?: () => Promise<string[]>, owner?: string): Promise<void>;
  /** `signal`: the MCP request was cancelled (or its client went away): the call stops, the session goes on. */
  callTool(sessionId: string, name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult>;
  closeSession(sessionId: string): Promise<void>;
  browserConnected(): boolean;
  /** Why no browser can run, with the fix (none found to launch), or undefined: for /health and the banner. */
  browserProblem?(): string | undefined;
  /**
   * What a session's running call waits for, in words, when it waits for the person or for the browser to start (for
   * progress notifications).
   */
  waitingFor?(sessionId: string): string | undefined;
  /** News of the person's browser for the log: it connected, dropped or left; the person stopped an agent. */
  onNotice?(listener: (notice: BrowserNotice) => void): void;
  close(): Promise<void>;
}

export type BrowserNotice =
  | { kind: 'browser'; browser: string; name: string | undefined; state: 'connected' | 'reconnecting' | 'gone' }
  | { kind: 'stopped'; session: string };

export interface EmbeddedBackendOptions extends LocalExecutorOptions {
  commandTimeoutMs?: number | undefined;
  graceMs?: number | undefined;
  /** --keep-browser-state: how long an owner's browser state outlives its last session, in ms. */
  keepStateMs?: number | undefined;
}

/**
 * What a session's running call waits for, when the browser says it waits for the person (a new agent to approve, a
 * hand-off) or for itself to start: the gateway puts it in the call's progress notifications.
 */
class CallWaits {
  private readonly messages = new Map<string, string>();

  watch(router: SessionRouter, sessionId: string): void {
    router.onEvent(sessionId, (event) => {
      if (event.name !== ExtensionEvents.waitingForPerson && event.name !== ExtensionEvents.waitingForBrowser) return;
      const waiting = parseWaitingForPerson(event.payload);
      if (waiting.ok) this.messages.set(sessionId, waiting.value.message);
    });
  }

  of(sessionId: string): string | undefined {
    return this.messages.get(sessionId);
  }

  /** The call ended: what it waited for is over. */
  done(sessionId: string): void {
    this.messages.delete(sessionId);
  }
}

/**
 * What the daemon's file policy asks of each open session when a file is first needed: its client's roots, and whose
 * files its are (its API key: each key saves into, and uploads from, a directory of its own).
 */
class SessionFilesRegistry {
  private readonly providers = new Map<string, () => Promise<string[]>>();
  private readonly owners = new Map<string, string>();
  readonly lookup = async (sessionId: string): Promise<string[]> => (await this.providers.get(sessionId)?.()) ?? [];
  readonly owner = async (sessionId: string): Promise<string | undefined> => this.owners.get(sessionId);

  /** Opens a session with `open`, its roots and owner known from the start; forgotten again if the open fails. */
  async opening(sessionId: string, roots: (() => Promise<string[]>) | undefined, owner: string | undefined, open: () => Promise<unknown>): Promise<void> {
    if (roots) this.providers.set(sessionId, roots);
    // Without keys (--no-auth, stdio) one owner has every file: the output directory itself.
    if (owner !== undefined && owner !== 'no-key' && owner !== 'stdio') this.owners.set(sessionId, `key:${owner}`);
    try {
      await open();
    } catch (err) {
      this.delete(sessionId);
      throw err;
    }
  }

  delete(sessionId: string): void {
    this.providers.delete(sessionId);
    this.owners.delete(sessionId);
  }
}

/**
 * Which daemon session each MCP session drives. Without --keep-browser-state, its own. With it, the sessions of one
 * owner take up the owner's kept state (the router's state handle): one daemon session, whose browser context and
 * tabs outlive each MCP session for the time given, then close.
 */
class SessionStates {
  private readonly held = new Map<string, { owner: string; handle: string; daemonSessionId: string }>();

  constructor(
    private readonly router: () => SessionRouter,
    private readonly keepMs: number | undefined,
  ) {}

  /** The daemon session an MCP session drives. */
  daemonSession(sessionId: string): string {
    return this.held.get(sessionId)?.daemonSessionId ?? sessionId;
  }

  /** Opens the MCP session: on its owner's kept state if there is one, else on a new daemon session (`open`). */
  async open(sessionId: string, owner: string | undefined, open: (daemonSessionId: string) => Promise<void>): Promise<void> {
    if (this.keepMs === undefined || owner === undefined) return open(sessionId);
    const router = this.router();
    const kept = await router.takeState(owner, { id: sessionId });
    if (kept) {
      this.held.set(sessionId, { owner, handle: kept.handle, daemonSessionId: kept.sessionId });
      return;
    }
    await open(sessionId);
    const state = await router.keepState(owner, sessionId, this.keepMs, { id: sessionId });
    // Another session of the owner kept one first: this one stays its own, closed with it.
    if (state) this.held.set(sessionId, { owner, handle: state.handle, daemonSessionId: sessionId });
  }

  /** Ends the MCP session: its daemon session closes (`close`), unless it is a kept state, which waits for the next. */
  async close(sessionId: string, close: (daemonSessionId: string) => Promise<unknown>): Promise<void> {
    const held = this.held.get(sessionId);
    this.held.delete(sessionId);
    if (!held) {
      await close(sessionId);
      return;
    }
    await this.router().releaseState(held.owner, held.handle, sessionId);
  }
}

/** The daemon in-process: a router with the local executor (a launched browser, or one reached over CDP). */
export class EmbeddedBackend implements Backend {
  readonly mode: 'launch' | 'cdp';
  readonly router: SessionRouter;
  readonly executor: LocalExecutor;
  private ready: Promise<unknown>;
  private readonly waiting = new CallWaits();
  private readonly roots = new SessionFilesRegistry();
  private readonly states: SessionStates;
  /** The browser a launch would use, or why none: looked up once (the disk is not scanned on every /health). */
  private readonly launchable: ReturnType<typeof chromeToLaunch> | undefined;

  constructor(options: EmbeddedBackendOptions) {
    this.router = new SessionRouter({
      defaultExecutorId: 'local',
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
      ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
    });
    this.executor = new LocalExecutor(this.router, { ...options, sessionRoots: this.roots.lookup, sessionOwner: this.roots.owner });
    this.mode = options.cdpEndpoint ? 'cdp' : 'launch';
    this.launchable = options.cdpEndpoint ? undefined : chromeToLaunch(options.executablePath);
    this.ready = this.router.executorConnected(this.executor);
    this.states = new SessionStates(() => this.router, options.keepStateMs);
  }

  async openSession(sessionId: string, clientName: string | undefined, roots?: () => Promise<string[]>, owner?: string): Promise<void> {
    await this.ready;
    await this.states.open(sessionId, owner, (id) => this.roots.opening(id, roots, owner, () => this.router.openSession(id, clientName ? { clientName } : {})));
    this.waiting.watch(this.router, this.states.daemonSession(sessionId));
  }

  async callTool(sessionId: string, name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    const id = this.states.daemonSession(sessionId);
    try {
      return (await this.router.dispatch(id, { name, payload: args, ...(signal ? { signal } : {}) })) as ToolResult;
    } finally {
      this.waiting.done(id);
    }
  }

  waitingFor(sessionId: string): string | undefined {
    return this.waiting.of(this.states.daemonSession(sessionId));
  }

  async closeSession(sessionId: string): Promise<void> {
    this.waiting.done(this.states.daemonSession(sessionId));
    await this.states.close(sessionId, (id) => {
      this.roots.delete(id);
      return this.router.closeSession(id);
    });
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

export interface ExtensionBackendOptions {
  /** Where the extension connects: ws://127.0.0.1:<daemonPort>/extension. */
  daemonPort: number;
  /** The secret the extension must be paired with (--pairing-file); its code is `pairingCode`. */
  pairingSecret: Uint8Array;
  /** The extension ids that may connect (default: the development build's). */
  extensionIds?: string[] | undefined;
  commandTimeoutMs?: number | undefined;
  graceMs?: number | undefined;
  /** How long a tool call waits for a browser to connect before it says how to connect one. */
  connectWaitMs?: number;
  /** How tools behave in the extension's sessions (the gateway's flags), as the launched browser applies them. */
  sessionSettings?: SessionSettings;
  /**
   * --output-dir, --file-roots and --allow-unrestricted-file-access: the extension's uploads are read under them
   * (and under each session's client roots), its saved files written to the output directory.
   */
  files?: { outputDir: string; roots: string[]; unrestricted?: boolean | undefined };
  /** --keep-browser-state: how long an owner's tabs outlive its last session, in ms. */
  keepStateMs?: number | undefined;
}

/**
 * The user's own browser through the MV3 extension: the daemon runs in-process with its /extension endpoint, and
 * each MCP session opens on a connected browser (in a tab group named after the client).
 */
export class ExtensionBackend implements Backend {
  readonly mode = 'extension' as const;
  private readonly waiting = new CallWaits();
  private readonly states: SessionStates;
  private readonly noticeListeners = new Set<(notice: BrowserNotice) => void>();
  private constructor(
    private readonly daemon: RunningDaemon,
    private readonly options: ExtensionBackendOptions,
    private readonly roots: SessionFilesRegistry,
  ) {
    this.states = new SessionStates(() => this.daemon.router, options.keepStateMs);
    const extensions = daemon.app.browsermcp.extensions;
    extensions.onChange((browser, state) => this.notify({ kind: 'browser', browser, name: extensions.records.get(browser)?.name, state }));
  }

  onNotice(listener: (notice: BrowserNotice) => void): void {
    this.noticeListeners.add(listener);
  }

  private notify(notice: BrowserNotice): void {
    for (const listener of this.noticeListeners) listener(notice);
  }

  static async start(options: ExtensionBackendOptions): Promise<ExtensionBackend> {
    const roots = new SessionFilesRegistry();
    const daemon = await startDaemon({
      host: '127.0.0.1',
      port: options.daemonPort,
      // Only the user's browser: no browser launched by the daemon.
      local: null,
      // Only /extension (and /health): MCP clients come through the gateway and its key, never straight to the daemon.
      commandEndpoints: false,
      pairingSecret: options.pairingSecret,
      ...(options.extensionIds ? { extensionIds: options.extensionIds } : {}),
      ...(options.sessionSettings ? { sessionSettings: options.sessionSettings } : {}),
      ...(options.files ? { extensionFiles: { ...options.files, sessionRoots: roots.lookup, sessionOwner: roots.owner } } : {}),
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
      ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
    });
    return new ExtensionBackend(daemon, options, roots);
  }

  /** The embedded daemon, for tests that check what it holds. */
  get daemonForTests(): RunningDaemon {
    return this.daemon;
  }

  get extensionUrl(): string {
    return `ws://127.0.0.1:${new URL(this.daemon.address).port}/extension`;
  }

  /** What the person pastes into the extension's popup, once: where the daemon is and the secret they share. */
  get pairingCode(): string {
    return formatPairingCode({ url: this.extensionUrl, secret: this.options.pairingSecret });
  }

  private connectedBrowser(): string | undefined {
    for (const record of this.daemon.app.browsermcp.extensions.records.values()) if (record.connection) return record.id;
    return undefined;
  }

  private pausedBrowser(): boolean {
    for (const record of this.daemon.app.browsermcp.extensions.records.values()) if (record.paused) return true;
    return false;
  }

  private async waitForBrowser(): Promise<string> {
    const deadline = Date.now() + (this.options.connectWaitMs ?? 10_000);
    for (;;) {
      const id = this.connectedBrowser();
      if (id) return id;
      if (this.pausedBrowser()) {
        throw new Error(
          'The person paused browsermcp in their browser (the Disconnect button in its popup). Ask them to press Connect in the browsermcp popup, then call the tool again.',
        );
      }
      if (Date.now() >= deadline) {
        throw new Error(
          `No browser is connected. Install the browsermcp extension (apps/extension, "Load unpacked") and pair it: paste the pairing code browsermcp-gateway printed at start into its popup (it connects to ${this.extensionUrl}); then call the tool again.`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async openSession(sessionId: string, clientName: string | undefined, roots?: () => Promise<string[]>, owner?: string): Promise<void> {
    const executorId = await this.waitForBrowser();
    await this.states.open(sessionId, owner, (id) =>
      this.roots.opening(id, roots, owner, () => {
        const agent = agentIdentity(owner);
        return this.daemon.router.openSession(id, { executorId, ...(clientName ? { clientName } : {}), ...(agent ? { agent } : {}) });
      }),
    );
    this.waiting.watch(this.daemon.router, this.states.daemonSession(sessionId));
    this.daemon.router.onSessionClosed(this.states.daemonSession(sessionId), (reason) => {
      if (reason === 'stopped') this.notify({ kind: 'stopped', session: sessionId });
    });
  }

  waitingFor(sessionId: string): string | undefined {
    return this.waiting.of(this.states.daemonSession(sessionId));
  }

  async callTool(sessionId: string, name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    const id = this.states.daemonSession(sessionId);
    try {
      return (await this.daemon.router.dispatch(id, { name, payload: args, ...(signal ? { signal } : {}) })) as ToolResult;
    } finally {
      this.waiting.done(id);
    }
  }

  async closeSession(sessionId: string): Promise<void> {
    this.waiting.done(this.states.daemonSession(sessionId));
    await this.states.close(sessionId, (id) => {
      this.roots.delete(id);
      return this.daemon.router.closeSession(id);
    });
  }

  browserConnected(): boolean {
    return this.connectedBrowser() !== undefined;
  }

  async close(): Promise<void> {
    await this.daemon.close();
  }
}
