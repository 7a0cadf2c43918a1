import { errorResponseFor, ExtensionEvents, responseFor, createEvent, type CommandEnvelope, type ResponseEnvelope } from '@browsermcp/protocol';
import {
  errorResult,
  isOptionalCapability,
  sessionConfigFrom,
  runCommand,
  ToolCalls,
  toolsFor,
  type Capability,
  type SessionConfig,
  type SessionHost,
  type StopReason,
  type Tool,
} from '@browsermcp/tools';
import type { BrowserContext, Page } from 'puppeteer-core';
import { isDaemonError, toWireError } from '../errors.js';
import { Deadlines } from '../deadlines.js';
import { formatDuration } from '../router/duration.js';
import type { ClientFolders, Executor, SessionRouter } from '../router/index.js';
import { LocalBrowser, type LocalBrowserOptions } from './browser.js';
import { SessionContexts } from './contexts.js';
import { accountOf, DEFAULT_MAX_KEY_MEMORY_MB, KeyMemory, keyMemoryHost } from './key-memory.js';
import { NodeFileAccess, sessionFilesOwner, type FilePathMode, type SessionOwner } from './files.js';
import { setupContext, type PageSetupOptions } from './page-setup.js';

export interface LocalExecutorOptions extends LocalBrowserOptions {
  /** Its id among the browsers a router knows; default "local" (a cluster gives each instance's its own). */
  id?: string | undefined;
  /** One context for every session instead of one isolated context each. */
  sharedBrowserContext?: boolean | undefined;
  /** Where screenshots, PDFs and GIFs are saved; uploads are also allowed from here. */
  outputDir: string;
  /** More directories uploads and storage states may be read from. */
  fileRoots?: string[] | undefined;
  /** --output-max-size: bytes each caller's output directory keeps. */
  outputMaxBytes?: number | undefined;
  /** --file-paths: how answers show saved files. */
  filePaths?: FilePathMode | undefined;
  /** Whose files each session's are; by default the user who opened it (see sessionFilesOwner). */
  sessionOwner?: SessionOwner | undefined;
  /** Any readable file may be an input (--allow-unrestricted-file-access), but for the protected ones. */
  allowUnrestrictedFileAccess?: boolean | undefined;
  /** The server's own files and folders (serverFilePaths): never an input; the launched browser's profile is added. */
  protectedPaths?: readonly string[] | undefined;
  /** Optional tool capabilities to allow (vision, pdf…). */
  caps?: Capability[] | undefined;
  /** Settings for the tools (snapshot budget, URL filter…). */
  toolConfig?: Partial<SessionConfig> | undefined;
  /** How each page and context is set up (user agent, device, init scripts, permissions). */
  pageSetup?: PageSetupOptions | undefined;
  /** --idle-timeout, ms: a launched browser no command used for this long is closed (the next one starts it again). */
  idleTimeoutMs?: number | undefined;
  /** --max-key-memory, MB: what one key's tabs may hold together, across its sessions and browser states. */
  maxKeyMemoryMb?: number | undefined;
}

/**
 * Runs commands with the @browsermcp/tools engine on a browser it launched (or reached over CDP). Each session gets
 * its own isolated BrowserContext by default, and may add named ones (browser_context_create).
 */
export class LocalExecutor implements Executor {
  readonly id: string;
  readonly kind = 'local' as const;
  readonly browser: LocalBrowser;
  private readonly router: SessionRouter;
  private readonly options: LocalExecutorOptions;
  private readonly files: NodeFileAccess;
  private readonly tools: Tool[];
  /** The tools of sessions whose client chose its own --caps (SessionRecord.settings). */
  private readonly sessionTools = new Map<string, Tool[]>();
  private readonly calls = new ToolCalls();
  private readonly sessions = new Map<string, SessionContexts>();
  private readonly creating = new Map<string, Promise<SessionContexts>>();
  private readonly tabIds = new WeakMap<Page, string>();
  /** What each key's tabs hold together (--max-key-memory). */
  private readonly keyMemory: KeyMemory<Page>;
  /** The tab ids each session was given, to release them in the router when the browser goes away. */
  private readonly sessionTabs = new Map<string, Set<string>>();
  /** Sessions whose browser died while they were idle, with why: their next answer says their pages are gone. */
  private readonly lostPages = new Map<string, string>();
  /** Commands running per session: a session with one learns of a crash from that command's answer. */
  private readonly running = new Map<string, number>();
  /** The client's folders each session's running call was handed (see ClientFolders). */
  private readonly callFolders = new Map<string, ClientFolders | undefined>();
  private nextTabId = 1;
  /** --idle-timeout's one deadline. */
  private readonly idle = new Deadlines<'browser'>();

  constructor(router: SessionRouter, options: LocalExecutorOptions) {
    this.id = options.id ?? 'local';
    this.router = router;
    this.options = options;
    this.keyMemory = new KeyMemory((options.maxKeyMemoryMb ?? DEFAULT_MAX_KEY_MEMORY_MB) * 1024 * 1024);
    // Origin lists in the tools' settings: the browser is launched so that no request gets around them (held-profile.ts).
    this.browser = new LocalBrowser({
      ...options,
      originLists: options.originLists ?? options.toolConfig?.checkUrl !== undefined,
      webmcp: options.webmcp ?? options.toolConfig?.webmcp !== false,
    });
    this.files = new NodeFileAccess({
      outputDir: options.outputDir,
      fileRoots: options.fileRoots ?? [],
      outputMaxBytes: options.outputMaxBytes,
      filePaths: options.filePaths,
      allowUnrestrictedFileAccess: options.allowUnrestrictedFileAccess,
      protectedPaths: () => [...(options.protectedPaths ?? []), ...this.browser.profileDirs()],
      sessionOwner: options.sessionOwner ?? sessionFilesOwner(router),
    });
    this.tools = toolsFor(options.caps ?? []);
    this.browser.onGone((reason) => this.browserGone(reason));
  }

  /** Whether sessions share the browser's default context (a shared or persistent profile); CDP gets one each too. */
  private get sharesDefaultContext(): boolean {
    return this.options.sharedBrowserContext === true || this.options.userDataDir !== undefined;
  }

  /** Runs the command and answers with its response (the router's command waiting for it gets it directly). */
  send(command: CommandEnvelope, timeoutMs: number, folders?: ClientFolders): Promise<ResponseEnvelope> {
    return this.run(command, timeoutMs, folders);
  }

  /** The router gave up on a command (its caller cancelled it, or it timed out): its tool call stops now. */
  cancel(command: CommandEnvelope, reason: StopReason): void {
    this.calls.stop(command.wireId, reason);
  }

  private async run(command: CommandEnvelope, timeoutMs: number, folders: ClientFolders | undefined): Promise<ResponseEnvelope> {
    this.idle.clear('browser');
    // What the session's tools read and save goes by its client's folders, as handed with this call.
    this.callFolders.set(command.sessionId, folders);
    this.running.set(command.sessionId, (this.running.get(command.sessionId) ?? 0) + 1);
    try {
      const contexts = await this.startedFor(command.sessionId, timeoutMs);
      const session = contexts.active();
      const lost = this.lostPages.get(command.sessionId);
      if (lost !== undefined) {
        this.lostPages.delete(command.sessionId);
        // Not silent: the model would otherwise act on a blank page as if it were the one it left.
        session.addNote(`Since your last call ${lost}; a new browser started, and this session's tabs and pages are gone. Navigate again.`);
      }
      // The answer names the session's current tab after the command (a new tab, a popup, a relaunched browser): the
      // router makes it the session's own and its current tab, so naming it is allowed. A tab id the active context
      // does not hold is not refused: after browser_context_switch the router still names the previous context's tab
      // until the new context has one.
      const response = await runCommand(this.calls, session, command, this.sessionTools.get(command.sessionId) ?? this.tools, {
        idOf: (page) => this.tabIds.get(page),
        answerIdOf: (page) => this.tabId(command.sessionId, page),
        unknown: () => undefined,
      });
      if (!this.browser.connected) return this.answerCrashed(command);
      return response;
    } catch (err) {
      // A CDP call cut off by a crash throws a bare "Target closed"; the model needs to know what to do instead.
      if (!this.browser.connected && !isLaunchError(err)) return this.answerCrashed(command);
      return errorResponseFor(command, toWireError(err));
    } finally {
      const left = (this.running.get(command.sessionId) ?? 1) - 1;
      if (left > 0) this.running.set(command.sessionId, left);
      else {
        this.running.delete(command.sessionId);
        this.callFolders.delete(command.sessionId);
      }
      if (this.running.size === 0) this.closeWhenIdle();
    }
  }

  /** --idle-timeout: the browser closes once no command has run for that long. */
  private closeWhenIdle(): void {
    const ms = this.options.idleTimeoutMs;
    if (!ms) return;
    this.idle.set('browser', ms, () => {
      if (this.running.size > 0) return;
      void this.browser.closeIdle(`the browser was closed after ${formatDuration(ms)} without a tool call (--idle-timeout)`);
    });
  }

  /** Answers a command whose browser died under it; without a tab, so the router does not claim a dead one again. */
  private answerCrashed(command: CommandEnvelope): ResponseEnvelope {
    const message = `The browser closed or crashed while ${command.name} ran. Call the tool again: a new browser starts.`;
    return responseFor(command, errorResult(message));
  }

  /** The page's tab id, given on first sight; the router is told when the page closes. */
  private tabId(sessionId: string, page: Page): string {
    let id = this.tabIds.get(page);
    if (!id) {
      const tabId = `local-${this.nextTabId++}`;
      id = tabId;
      this.tabIds.set(page, tabId);
      let tabs = this.sessionTabs.get(sessionId);
      if (!tabs) this.sessionTabs.set(sessionId, (tabs = new Set()));
      tabs.add(tabId);
      page.once('close', () => {
        tabs.delete(tabId);
        this.releaseTab(tabId);
      });
    }
    return id;
  }

  private releaseTab(tabId: string): void {
    // The router may be closed already at shutdown; there is nothing left to tell then.
    void Promise.resolve()
      .then(() => this.router.releaseTab(this.id, tabId))
      .catch(() => undefined);
  }

  /**
   * The session's contexts, the browser started first if it must be (the first call, or the first after a crash):
   * a start has its own bound, so the command's timeout waits for it and then starts again whole. A slow start (a
   * loaded machine, a cold disk) does not eat the call's time.
   */
  private async startedFor(sessionId: string, timeoutMs: number): Promise<SessionContexts> {
    if (this.browser.connected) return this.contextsFor(sessionId);
    this.waitingFor(sessionId, 'Starting the browser', this.browser.startBoundMs);
    const contexts = await this.contextsFor(sessionId);
    this.waitingFor(sessionId, 'The browser started', timeoutMs);
    return contexts;
  }

  /** Holds the session's command for `ms` from now (the router restarts its timeout), and says why in its progress. */
  private waitingFor(sessionId: string, message: string, ms: number): void {
    void this.router.handleEvent(this.id, createEvent({ sessionId, name: ExtensionEvents.waitingForBrowser, payload: { message, ms } })).catch(() => undefined);
  }

  private contextsFor(sessionId: string): Promise<SessionContexts> {
    const contexts = this.sessions.get(sessionId);
    if (contexts) return Promise.resolve(contexts);
    // One creation per session, which closeSession can wait for: a session closed while its first command is still
    // starting the browser or creating its context must not leave that context behind.
    let creating = this.creating.get(sessionId);
    if (!creating) {
      creating = this.createContexts(sessionId).finally(() => this.creating.delete(sessionId));
      this.creating.set(sessionId, creating);
    }
    return creating;
  }

  private async createContexts(sessionId: string): Promise<SessionContexts> {
    const browser = await this.browser.get();
    const shared = this.sharesDefaultContext;
    const context: BrowserContext = shared ? browser.defaultBrowserContext() : await browser.createBrowserContext();
    const pageSetup = this.options.pageSetup ?? {};
    try {
      await setupContext(context, pageSetup, !shared);
    } catch (err) {
      if (!shared) await context.close().catch(() => undefined);
      throw err;
    }
    // The session's own settings (its gateway's flags, within this daemon's), over the executor's defaults.
    const record = await this.router.getSession(sessionId);
    const settings = record?.settings;
    if (settings?.caps) this.sessionTools.set(sessionId, toolsFor(settings.caps.filter(isOptionalCapability)));
    const contexts = new SessionContexts({
      pageSetup,
      browser,
      defaultContext: context,
      ownsDefaultContext: !shared,
      files: this.files.forSession(sessionId, () => this.callFolders.get(sessionId)),
      toolConfig: settings ? withinConfig(this.options.toolConfig ?? {}, sessionConfigFrom(settings)) : (this.options.toolConfig ?? {}),
      ...(this.personCanSee ? { person: this.personFor(sessionId) } : {}),
      memory: keyMemoryHost(this.keyMemory, record ? accountOf(record) : undefined),
    });
    this.sessions.set(sessionId, contexts);
    return contexts;
  }

  /** Someone can see the browser: it is headed, or one the user started (reached over CDP). */
  private get personCanSee(): boolean {
    return this.options.cdpEndpoint !== undefined || this.options.headless === false;
  }

  /** A session's hand-off to the person holds its command past the command timeout, and tells its client why. */
  private personFor(sessionId: string): NonNullable<SessionHost['person']> {
    return {
      waiting: (message, ms) => {
        // The router holds the session's command for as long (the event says how long).
        void this.router.handleEvent(this.id, createEvent({ sessionId, name: ExtensionEvents.waitingForPerson, payload: { message, ms } }));
      },
    };
  }

  async closeSession(sessionId: string): Promise<void> {
    this.lostPages.delete(sessionId);
    this.sessionTools.delete(sessionId);
    await this.creating.get(sessionId)?.catch(() => undefined);
    const contexts = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    this.sessionTabs.delete(sessionId);
    await contexts?.closeAll();
  }

  private browserGone(reason: string): void {
    const ids = [...this.sessions.keys()];
    for (const sessionId of ids) if (!this.running.get(sessionId)) this.lostPages.set(sessionId, reason);
    this.sessions.clear();
    // Its pages died with it without a close event: the sessions' next commands must open new tabs, not name these.
    for (const tabs of this.sessionTabs.values()) for (const tabId of tabs) this.releaseTab(tabId);
    this.sessionTabs.clear();
    for (const sessionId of ids) {
      void this.router.handleEvent(
        this.id,
        createEvent({ sessionId, name: 'browser_gone', payload: { reason: `${reason}; the next command starts it again` } }),
      );
    }
  }

  /** Closes every session's contexts and the browser it launched. */
  async close(): Promise<void> {
    this.idle.clearAll();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((c) => c.closeAll().catch(() => undefined)));
    await this.browser.close();
  }
}

function isLaunchError(error: unknown): boolean {
  return isDaemonError(error) && error.code === 'BMCP_ERR_BROWSER_LAUNCH';
}

/** A session's config over the executor's: both origin checks hold (the first refusal answers), the rest is the session's. */
function withinConfig(own: Partial<SessionConfig>, session: Partial<SessionConfig>): Partial<SessionConfig> {
  const [a, b] = [own.checkUrl, session.checkUrl];
  return { ...own, ...session, ...(a && b ? { checkUrl: (url: string) => a(url) ?? b(url) } : {}) };
}
