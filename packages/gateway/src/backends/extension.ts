import { startDaemon, type NodeFileAccessOptions, type RunningDaemon, type SessionRouter } from '@browsermcp/daemon';
import { formatPairingCode, type SessionSettings } from '@browsermcp/protocol';
import { agentIdentity } from '../agent-identity.js';
import { portInUse } from '../errors.js';
import type { BrowserNotice, OpenSessionOptions } from '../backend.js';
import { RouterBackend } from './router-backend.js';
import { SessionFilesRegistry } from './session-files.js';

export interface ExtensionBackendOptions {
  /** Where the extension connects: ws://127.0.0.1:<daemonPort>/extension. */
  daemonPort: number;
  /** The secret the extension must be paired with (--pairing-file); its code is `pairingCode`. */
  pairingSecret: Uint8Array;
  /** The extension ids that may connect (default: the development build's). */
  extensionIds?: string[] | undefined;
  commandTimeoutMs?: number | undefined;
  gracePeriodMs?: number | undefined;
  /** --max-browser-states: most browser states kept at once. */
  maxBrowserStates?: number | undefined;
  /** How long a tool call waits for a browser to connect before it says how to connect one. */
  connectWaitMs?: number;
  /** How tools behave in the extension's sessions (the gateway's flags), as the launched browser applies them. */
  sessionSettings?: SessionSettings;
  /**
   * --output-dir, --file-roots and --allow-unrestricted-file-access: the extension's uploads are read under them
   * (and under each session's client roots), its saved files written to the output directory.
   */
  files?: Pick<NodeFileAccessOptions, 'outputDir' | 'fileRoots' | 'allowUnrestrictedFileAccess' | 'protectedPaths' | 'outputMaxBytes' | 'filePaths'>;
  /** --keep-browser-state: how long an owner's tabs outlive its last session, in ms. */
  keepBrowserStateMs?: number | undefined;
  /** The labels of --api-key-file's `label=key` lines, by the key's hash: shown to the person beside its fingerprint. */
  keyLabels?: ReadonlyMap<string, string> | undefined;
}

/**
 * The user's own browser through the MV3 extension: the daemon runs in-process with its /extension endpoint, and
 * each MCP session opens on a connected browser (in a tab group named after the client).
 */
export class ExtensionBackend extends RouterBackend {
  readonly mode = 'extension' as const;
  private readonly noticeListeners = new Set<(notice: BrowserNotice) => void>();

  private constructor(
    private readonly daemon: RunningDaemon,
    private readonly options: ExtensionBackendOptions,
    files: SessionFilesRegistry,
  ) {
    super(options.keepBrowserStateMs, files);
    const extensions = daemon.app.browsermcp.extensions;
    extensions.onChange((browser, state) => this.notify({ kind: 'browser', browser, name: extensions.records.get(browser)?.name, state }));
  }

  static async start(options: ExtensionBackendOptions): Promise<ExtensionBackend> {
    const files = new SessionFilesRegistry();
    // The port the extension dials is --daemon-port's: a clash names that flag, not the gateway's --port.
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
      ...(options.files ? { extensionFiles: { ...options.files, sessionOwner: files.owner } } : {}),
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
      ...(options.gracePeriodMs !== undefined ? { gracePeriodMs: options.gracePeriodMs } : {}),
      ...(options.maxBrowserStates !== undefined ? { maxBrowserStates: options.maxBrowserStates } : {}),
    }).catch((err: unknown) => {
      throw portInUse(err, options.daemonPort, '--daemon-port');
    });
    return new ExtensionBackend(daemon, options, files);
  }

  protected get router(): SessionRouter {
    return this.daemon.router;
  }

  onNotice(listener: (notice: BrowserNotice) => void): void {
    this.noticeListeners.add(listener);
  }

  private notify(notice: BrowserNotice): void {
    for (const listener of this.noticeListeners) listener(notice);
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

  /** The connected browser sessions open on, waiting a while for one to connect. */
  protected override async beforeOpen(): Promise<string> {
    const deadline = Date.now() + (this.options.connectWaitMs ?? 10_000);
    for (;;) {
      const id = this.connectedBrowser();
      if (id) return id;
      if (this.pausedBrowser()) {
        throw new Error(
          "The person paused browsermcp in their browser (Disconnect in its popup, or Cancel on Chrome's debugging bar). Ask them to press Connect in the browsermcp popup, then call the tool again.",
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

  protected async openDaemonSession(id: string, { clientName, owner, caller }: OpenSessionOptions, executorId: string | undefined): Promise<void> {
    // The key's hash (a browser state's owner also names its handle): the person sees the fingerprint the gateway's
    // banner gives that key, and its label from --api-key-file.
    const key = caller ?? owner;
    const identity = agentIdentity(key);
    const label = key === undefined ? undefined : this.options.keyLabels?.get(key);
    const agent = identity && label ? `${identity} (${label})` : identity;
    await this.router.openSession(id, { ...(executorId ? { executorId } : {}), ...(clientName ? { clientName } : {}), ...(agent ? { agent } : {}) });
  }

  protected override listen(sessionId: string, daemonSessionId: string): Array<() => void> {
    return [
      this.router.onSessionClosed(daemonSessionId, (reason) => {
        if (reason === 'stopped') this.notify({ kind: 'stopped', session: sessionId, via: this.router.stoppedVia(daemonSessionId) });
      }),
    ];
  }

  browserConnected(): boolean {
    return this.connectedBrowser() !== undefined;
  }

  async close(): Promise<void> {
    await this.daemon.close();
  }
}
