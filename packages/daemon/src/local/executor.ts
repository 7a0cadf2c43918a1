import { ErrorCodes, errorResponseFor, responseFor, createEvent, type CommandEnvelope } from '@browsermcp/protocol';
import {
  callTool,
  ToolError,
  toolsFor,
  ToolSession,
  UnknownToolError,
  type Capability,
  type SessionConfig,
  type Tool,
  type ToolResult,
} from '@browsermcp/tools';
import type { BrowserContext, Page } from 'puppeteer-core';
import { toWireError } from '../errors.js';
import type { Executor, SessionRouter } from '../router/index.js';
import { LocalBrowser, type LocalBrowserOptions } from './browser.js';
import { SessionContexts } from './contexts.js';
import { NodeFileAccess } from './files.js';

export interface LocalExecutorOptions extends LocalBrowserOptions {
  /** One context for every session instead of one isolated context each. */
  sharedBrowserContext?: boolean | undefined;
  /** Where screenshots, PDFs and GIFs are saved; uploads are also allowed from here. */
  outputDir: string;
  /** More directories uploads and storage states may be read from. */
  fileRoots?: string[] | undefined;
  /** Optional tool capabilities to allow (vision, pdf…). */
  caps?: Capability[] | undefined;
  /** Settings for the tools (snapshot budget, URL filter…). */
  toolConfig?: Partial<SessionConfig> | undefined;
}

/**
 * Runs commands with the @browsermcp/tools engine on a browser it launched (or reached over CDP). Each session gets
 * its own isolated BrowserContext by default, and may add named ones (browser_context_create).
 */
export class LocalExecutor implements Executor {
  readonly id = 'local';
  readonly kind = 'local' as const;
  readonly browser: LocalBrowser;
  private readonly router: SessionRouter;
  private readonly options: LocalExecutorOptions;
  private readonly files: NodeFileAccess;
  private readonly tools: Tool[];
  private readonly sessions = new Map<string, SessionContexts>();
  private readonly tabIds = new WeakMap<Page, string>();
  private nextTabId = 1;

  constructor(router: SessionRouter, options: LocalExecutorOptions) {
    this.router = router;
    this.options = options;
    this.browser = new LocalBrowser(options);
    this.files = new NodeFileAccess({ outputDir: options.outputDir, roots: options.fileRoots ?? [] });
    this.tools = toolsFor(options.caps ?? []);
    this.browser.onGone((reason) => this.browserGone(reason));
  }

  /** Whether sessions share the browser's default context (a shared or persistent profile, or CDP). */
  private get sharesDefaultContext(): boolean {
    return this.options.sharedBrowserContext === true || this.options.userDataDir !== undefined;
  }

  send(command: CommandEnvelope): void {
    void this.run(command);
  }

  private async run(command: CommandEnvelope): Promise<void> {
    try {
      const contexts = await this.contextsFor(command.sessionId);
      const session = contexts.active();
      if (command.tabId !== undefined) this.selectTab(session, command.tabId);
      let result: ToolResult;
      try {
        result = await callTool(session, command.name, contexts.unprefixArgs(command.payload ?? {}), this.tools);
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        result = { content: [{ type: 'text', text: `### Error\n${err.message}` }], isError: true };
      }
      if (!this.browser.connected) {
        result = {
          content: [{ type: 'text', text: `### Error\nThe browser closed or crashed while ${command.name} ran. Call the tool again: a new browser starts.` }],
          isError: true,
        };
      }
      const tab = contexts.active().peekCurrentTab();
      const response = responseFor(command, contexts.prefixRefs(result));
      this.router.handleResponse(this.id, tab ? { ...response, tabId: this.tabId(tab.page) } : response);
    } catch (err) {
      const error =
        err instanceof UnknownToolError
          ? { code: ErrorCodes.MethodNotFound, message: err.message }
          : toWireError(err);
      this.router.handleResponse(this.id, errorResponseFor(command, error));
    }
  }

  private selectTab(session: ToolSession, tabId: string): void {
    const index = session.tabs.findIndex((t) => this.tabIds.get(t.page) === tabId);
    if (index >= 0) session.selectTab(index);
  }

  private tabId(page: Page): string {
    let id = this.tabIds.get(page);
    if (!id) {
      id = `local-${this.nextTabId++}`;
      this.tabIds.set(page, id);
    }
    return id;
  }

  private async contextsFor(sessionId: string): Promise<SessionContexts> {
    let contexts = this.sessions.get(sessionId);
    if (contexts) return contexts;
    const browser = await this.browser.get();
    const shared = this.sharesDefaultContext || this.browser.mode === 'cdp';
    const context: BrowserContext = shared ? browser.defaultBrowserContext() : await browser.createBrowserContext();
    // Another command of this session may have raced us here while the browser started.
    contexts = this.sessions.get(sessionId);
    if (contexts) {
      if (!shared) await context.close().catch(() => undefined);
      return contexts;
    }
    contexts = new SessionContexts({
      browser,
      defaultContext: context,
      ownsDefaultContext: !shared,
      files: this.files,
      toolConfig: this.options.toolConfig ?? {},
    });
    this.sessions.set(sessionId, contexts);
    return contexts;
  }

  async closeSession(sessionId: string): Promise<void> {
    const contexts = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    await contexts?.closeAll();
  }

  private browserGone(reason: string): void {
    const ids = [...this.sessions.keys()];
    this.sessions.clear();
    for (const sessionId of ids) {
      void this.router.handleEvent(
        this.id,
        createEvent({ sessionId, name: 'browser_gone', payload: { reason: `${reason}; the next command starts it again` } }),
      );
    }
  }

  stats(): { sessions: number; browserConnected: boolean } {
    return { sessions: this.sessions.size, browserConnected: this.browser.connected };
  }

  /** Closes every session's contexts and the browser it launched. */
  async close(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((c) => c.closeAll().catch(() => undefined)));
    await this.browser.close();
  }
}
