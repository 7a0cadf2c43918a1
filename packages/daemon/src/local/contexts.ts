import { readFile } from 'node:fs/promises';
import { ToolError, ToolSession, type ContextInfo, type ContextManager, type ProxySettings, type SessionConfig, type SessionHost } from '@browsermcp/tools';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import type { NodeFileAccess } from './files.js';
import { applyStorageState, setupContext, setupPage, type PageSetupOptions, type StorageState } from './page-setup.js';

const DEFAULT = 'default';

interface Entry {
  name: string;
  context: BrowserContext;
  owns: boolean;
  session: ToolSession;
  proxy: ProxySettings | undefined;
}

/**
 * The browser contexts of one session: `default` plus the named ones it created. Tools run in the active one;
 * refs from a named context carry its name (`uk:e2`) so they cannot reach into another context by mistake.
 */
export class SessionContexts implements ContextManager {
  private readonly browser: Browser;
  private readonly files: NodeFileAccess;
  private readonly toolConfig: Partial<SessionConfig>;
  private readonly person: SessionHost['person'];
  private readonly memory: SessionHost['memory'];
  private readonly pageSetup: PageSetupOptions;
  private readonly entries = new Map<string, Entry>();
  private activeName = DEFAULT;

  constructor(options: {
    browser: Browser;
    defaultContext: BrowserContext;
    ownsDefaultContext: boolean;
    files: NodeFileAccess;
    toolConfig: Partial<SessionConfig>;
    /** Present when someone can see this browser (headed, or reached over CDP): hand-offs to the person work. */
    person?: SessionHost['person'];
    /** The budget beyond the session its tabs count toward (its key's, --max-key-memory), in every context of it. */
    memory?: SessionHost['memory'];
    /** How each page and context is set up (user agent, device, init scripts, permissions). */
    pageSetup?: PageSetupOptions;
  }) {
    this.pageSetup = options.pageSetup ?? {};
    this.browser = options.browser;
    this.person = options.person;
    this.memory = options.memory;
    this.files = options.files;
    this.toolConfig = options.toolConfig;
    this.entries.set(DEFAULT, this.entry(DEFAULT, options.defaultContext, options.ownsDefaultContext, undefined));
  }

  private entry(name: string, context: BrowserContext, owns: boolean, proxy: ProxySettings | undefined): Entry {
    const newPage = async (): Promise<Page> => {
      const page = await context.newPage();
      await setupPage(page, this.pageSetup);
      if (proxy?.username !== undefined) await page.authenticate({ username: proxy.username, password: proxy.password ?? '' });
      return page;
    };
    const session = new ToolSession(
      {
        newPage,
        files: this.files,
        contexts: this,
        // Refs of a named context carry its name (uk:e2): the tools write and check them.
        ...(name === DEFAULT ? {} : { refContext: name }),
        ...(this.person ? { person: this.person } : {}),
        ...(this.memory ? { memory: this.memory } : {}),
      },
      this.toolConfig,
    );
    return { name, context, owns, session, proxy };
  }

  active(): ToolSession {
    return this.entries.get(this.activeName)!.session;
  }

  async create(options: { name: string; proxy?: ProxySettings | undefined; storageState?: string | undefined }): Promise<void> {
    const { name, proxy, storageState } = options;
    if (this.entries.has(name)) throw new ToolError(`A context named "${name}" already exists; switch to it or pick another name.`);
    const state = storageState ? await this.readStorageState(storageState) : undefined;
    const context = await this.browser.createBrowserContext({
      ...(proxy ? { proxyServer: proxy.server } : {}),
      ...(proxy?.bypass
        ? {
            proxyBypassList: proxy.bypass
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          }
        : {}),
    });
    try {
      await setupContext(context, this.pageSetup);
      if (state) await applyStorageState(context, state);
    } catch (err) {
      await context.close().catch(() => undefined);
      throw new ToolError(`Could not load the storage state ${storageState}: ${(err as Error).message}`);
    }
    this.entries.set(name, this.entry(name, context, true, proxy));
    this.activeName = name;
  }

  private async readStorageState(path: string): Promise<StorageState> {
    const full = await this.files.readable(path);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(full, 'utf8'));
    } catch (err) {
      throw new ToolError(`${path} is not a JSON storage state file: ${(err as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ToolError(`${path} must hold an object {cookies, origins} (Playwright's storage state).`);
    }
    const state = parsed as StorageState;
    if (state.cookies !== undefined && !Array.isArray(state.cookies)) throw new ToolError(`${path}: "cookies" must be an array.`);
    if (state.origins !== undefined && !Array.isArray(state.origins)) throw new ToolError(`${path}: "origins" must be an array.`);
    return state;
  }

  async switch(name: string): Promise<void> {
    if (!this.entries.has(name)) throw new ToolError(`No context named "${name}". ${this.namesHint()}`);
    this.activeName = name;
  }

  async list(): Promise<ContextInfo[]> {
    return [...this.entries.values()].map((e) => {
      const tab = e.session.peekCurrentTab();
      return {
        name: e.name,
        pages: e.session.tabs.length,
        url: tab?.page.url(),
        proxy: e.proxy?.server,
        active: e.name === this.activeName,
      };
    });
  }

  async close(name: string): Promise<void> {
    if (name === DEFAULT) throw new ToolError('The default context cannot be closed; close its tabs with browser_close.');
    const entry = this.entries.get(name);
    if (!entry) throw new ToolError(`No context named "${name}". ${this.namesHint()}`);
    this.entries.delete(name);
    if (this.activeName === name) this.activeName = DEFAULT;
    await entry.context.close();
  }

  private namesHint(): string {
    return `Contexts: ${[...this.entries.keys()].join(', ')}.`;
  }

  /** Closes every context this session made and its tabs in a shared one. */
  async closeAll(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(
      entries.map(async (e) => {
        if (e.owns) await e.context.close().catch(() => undefined);
        else await e.session.closeAll().catch(() => undefined);
      }),
    );
  }
}
