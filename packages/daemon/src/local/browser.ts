import puppeteer, { type Browser } from 'puppeteer-core';
import { BrowserLaunchError } from '../errors.js';
import { findChrome, NO_CHROME_FIX, QUIET_ARGS } from './chrome.js';
import { HELD_ARGS, heldProfile } from './held-profile.js';
import { killProcessGroup } from './process-group.js';

export interface LocalBrowserOptions {
  /** Chrome/Chromium to launch; found automatically when omitted. */
  executablePath?: string | undefined;
  /** Headless (default) or a visible window. */
  headless?: boolean | undefined;
  /** Viewport of new pages; null keeps the window's own size. Default 1280×720. */
  viewport?: { width: number; height: number } | null | undefined;
  /** A persistent profile: sessions share its cookies but still own their tabs. */
  userDataDir?: string | undefined;
  /** Extra command-line flags for the launched browser (never a remote-debugging port: see REFUSED_ARGS). */
  browserArgs?: string[] | undefined;
  /** Chromium's sandbox: true on, false off; undefined: on, except when running as root (Chromium refuses that). */
  sandbox?: boolean | undefined;
  /** Connect to this running browser (http://host:port or ws://…) instead of launching one. */
  cdpEndpoint?: string | undefined;
  /** Headers sent with every request to the CDP endpoint (a hosted browser's credentials, --cdp-header). */
  cdpHeaders?: Record<string, string> | undefined;
  /** How long connecting to the CDP endpoint may take, ms (--cdp-timeout); 0 waits as long as it takes. Default 30 s. */
  cdpTimeoutMs?: number | undefined;
  /** Accept pages whose HTTPS certificate is not valid (--ignore-https-errors). */
  ignoreHttpsErrors?: boolean | undefined;
  /** Send the browser's traffic through this proxy (--proxy-server), except to the hosts in `bypass`. */
  proxy?: { server: string; bypass?: string | undefined } | undefined;
  /**
   * Its pages are held to origin lists: a launched browser then has no speculative loading and no SharedWorker, whose
   * requests no page's interception sees (held-profile.ts).
   */
  originLists?: boolean | undefined;
  /** Pages may register tools for agents (Chrome's WebMCP feature); on unless false (--no-webmcp). */
  webmcp?: boolean | undefined;
}

/** The browser's WebSocket URL from its http endpoint's /json/version, asked with the endpoint's headers. */
async function webSocketUrlOf(endpoint: string, headers: Record<string, string>, signal: AbortSignal): Promise<string> {
  const response = await fetch(new URL('/json/version', endpoint), { headers, signal });
  if (!response.ok) throw new Error(`${new URL('/json/version', endpoint).href} answered HTTP ${response.status}`);
  const { webSocketDebuggerUrl } = (await response.json()) as { webSocketDebuggerUrl?: unknown };
  if (typeof webSocketDebuggerUrl !== 'string') throw new Error('its /json/version has no webSocketDebuggerUrl');
  return webSocketDebuggerUrl;
}

/** How long a launch may take before it fails (puppeteer's own default, said here: calls wait for it). */
const LAUNCH_TIMEOUT_MS = 30_000;
/** New pages' viewport when none is given (--viewport-size's default, 1280x720). */
export const DEFAULT_VIEWPORT = { width: 1280, height: 720 };
/** --cdp-timeout's default: how long connecting to a running browser may take. */
export const DEFAULT_CDP_TIMEOUT_MS = 30_000;

/** The environment a launched browser gets: the server's, without its BROWSERMCP_* and PLAYWRIGHT_MCP_* settings. */
export function browserEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).flatMap(([name, value]) => (value === undefined || /^(BROWSERMCP|PLAYWRIGHT_MCP)_/i.test(name) ? [] : [[name, value]])),
  );
}

/**
 * The browser the local executor drives: launched lazily on first use (or reached over CDP), watched for crashes,
 * and launched again by the next use after one.
 */
export class LocalBrowser {
  private readonly options: LocalBrowserOptions;
  private starting: Promise<Browser> | undefined;
  private browser: Browser | undefined;
  private closing = false;
  private readonly goneListeners = new Set<(reason: string) => void>();

  constructor(options: LocalBrowserOptions = {}) {
    const refused = refusedBrowserArg(options.browserArgs ?? []);
    if (refused) throw new BrowserLaunchError(refused);
    this.options = options;
  }

  get connected(): boolean {
    return this.browser?.connected === true;
  }

  /** The longest starting the browser may take, ms (a launch, or connecting over CDP; 0 there waits for ever). */
  get startBoundMs(): number {
    if (!this.options.cdpEndpoint) return LAUNCH_TIMEOUT_MS;
    const ms = this.options.cdpTimeoutMs ?? DEFAULT_CDP_TIMEOUT_MS;
    return ms === 0 ? Number.MAX_SAFE_INTEGER : ms;
  }

  /** The launched browser's process id (undefined before launch, after close, or in CDP mode): for health checks and tests. */
  get pid(): number | undefined {
    return this.browser?.process()?.pid ?? undefined;
  }

  /**
   * The profile folder of the launched browser (its cookies and saved data), also the temporary one puppeteer makes:
   * the server's own, so no tool reads from it. None before launch or for a browser reached over CDP.
   */
  profileDirs(): string[] {
    const flag = this.browser?.process()?.spawnargs.find((arg) => arg.startsWith('--user-data-dir='));
    return [...(flag ? [flag.slice('--user-data-dir='.length)] : []), ...(this.options.userDataDir ? [this.options.userDataDir] : [])];
  }

  /** Told when the browser crashes, is closed by the user, or the CDP connection drops. */
  onGone(listener: (reason: string) => void): () => void {
    this.goneListeners.add(listener);
    return () => this.goneListeners.delete(listener);
  }

  async get(): Promise<Browser> {
    if (this.browser?.connected) return this.browser;
    if (this.closing) throw new BrowserLaunchError('the daemon is shutting down');
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<Browser> {
    const browser = this.options.cdpEndpoint ? await this.connect(this.options.cdpEndpoint) : await this.launch();
    this.browser = browser;
    const pid = browser.process()?.pid;
    browser.once('disconnected', () => {
      // A crashed browser leaves its renderers and helpers behind for a moment; take them down with it.
      if (pid !== undefined) void killProcessGroup(pid);
      if (this.browser !== browser) return;
      this.browser = undefined;
      if (this.closing) return;
      const reason = this.options.cdpEndpoint ? 'the CDP connection to the browser closed' : 'the browser closed or crashed';
      for (const l of this.goneListeners) l(reason);
    });
    return browser;
  }

  private async connect(endpoint: string): Promise<Browser> {
    const viewport = this.options.viewport === undefined ? DEFAULT_VIEWPORT : this.options.viewport;
    const headers = this.options.cdpHeaders ?? {};
    const timeoutMs = this.options.cdpTimeoutMs ?? DEFAULT_CDP_TIMEOUT_MS;
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const connecting = (async () => {
      // puppeteer reads /json/version without headers; a gatekept endpoint needs them there too.
      const browserWSEndpoint = /^wss?:/i.test(endpoint) ? endpoint : await webSocketUrlOf(endpoint, headers, abort.signal);
      return puppeteer.connect({
        browserWSEndpoint,
        headers,
        defaultViewport: viewport,
        ...(this.options.ignoreHttpsErrors ? { acceptInsecureCerts: true } : {}),
      });
    })();
    try {
      if (timeoutMs === 0) return await connecting;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          abort.abort();
          // A connection that completes after we gave up must not stay open.
          void connecting.then((b) => b.disconnect()).catch(() => undefined);
          reject(new Error(`no answer within ${timeoutMs} ms (--cdp-timeout)`));
        }, timeoutMs);
      });
      return await Promise.race([connecting, timedOut]);
    } catch (err) {
      throw new BrowserLaunchError(
        `cannot connect to the browser at ${endpoint} (${(err as Error).message.split('\n')[0]}); start Chrome with --remote-debugging-port and check the URL`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  private async launch(): Promise<Browser> {
    const executablePath = this.options.executablePath ?? findChrome();
    if (!executablePath) {
      throw new BrowserLaunchError(NO_CHROME_FIX);
    }
    const proxy = this.options.proxy;
    const headless = this.options.headless ?? true;
    const args = [
      ...QUIET_ARGS,
      // Headless, nobody looks at the pixels: software compositing in the renderer costs less than the GPU process's
      // emulated GL (about an eighth less CPU per tool call with 20 sessions; WebGL and screenshots still work).
      ...(headless ? ['--disable-gpu'] : []),
      ...(proxy ? [`--proxy-server=${proxy.server}`, ...(proxy.bypass ? [`--proxy-bypass-list=${proxy.bypass.replaceAll(',', ';')}`] : [])] : []),
      ...withWebMcp(this.options.browserArgs ?? [], this.options.webmcp !== false),
    ];
    // Chromium refuses to start as root with its sandbox on.
    const sandbox = this.options.sandbox ?? process.getuid?.() !== 0;
    if (!sandbox && !args.includes('--no-sandbox')) args.push('--no-sandbox');
    const viewport = this.options.viewport === undefined ? DEFAULT_VIEWPORT : this.options.viewport;
    const held = this.options.originLists ? heldProfile(this.options.userDataDir) : undefined;
    if (held) args.push(...HELD_ARGS);
    const userDataDir = held?.dir ?? this.options.userDataDir;
    try {
      const browser = await puppeteer.launch({
        executablePath,
        headless,
        // CDP over the DevTools pipe, not a TCP port: no other local process can reach the sessions' pages (there is
        // no port and no DevToolsActivePort file), and Chromium exits when its parent dies, even by SIGKILL.
        pipe: true,
        timeout: LAUNCH_TIMEOUT_MS,
        args,
        // The browser needs none of the server's own variables (keys among them): a file:// page could show them.
        env: browserEnvironment(process.env),
        defaultViewport: viewport,
        ...(this.options.ignoreHttpsErrors ? { acceptInsecureCerts: true } : {}),
        ...(userDataDir ? { userDataDir } : {}),
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      // The profile made for this launch goes with the browser (closed, or crashed).
      if (held) browser.process()?.once('exit', () => held.remove());
      return browser;
    } catch (err) {
      held?.remove();
      throw new BrowserLaunchError(`cannot launch ${executablePath}: ${(err as Error).message.split('\n')[0]}`);
    }
  }

  /**
   * Closes a launched browser nobody has used for a while (--idle-timeout): its sessions are told `reason`, and the
   * next use launches it again. A browser reached over CDP is the user's and stays.
   */
  async closeIdle(reason: string): Promise<void> {
    const browser = this.browser;
    if (!browser || this.options.cdpEndpoint || this.starting || this.closing) return;
    // Taken first, and its users told before it goes: a call arriving meanwhile starts a new browser rather than
    // reaching for a context of the closing one, and the disconnect is not reported as a crash.
    this.browser = undefined;
    for (const l of this.goneListeners) l(reason);
    const pid = browser.process()?.pid;
    await browser.close().catch(() => browser.process()?.kill('SIGKILL'));
    if (pid !== undefined) await killProcessGroup(pid);
  }

  /** Closes a launched browser (or disconnects from a CDP one). Safe to call twice. */
  async close(): Promise<void> {
    this.closing = true;
    const starting = this.starting;
    const browser = this.browser ?? (starting ? await starting.catch(() => undefined) : undefined);
    this.browser = undefined;
    if (!browser) return;
    if (this.options.cdpEndpoint) {
      await browser.disconnect().catch(() => undefined);
      return;
    }
    const pid = browser.process()?.pid;
    await browser.close().catch(() => browser.process()?.kill('SIGKILL'));
    // close() returns when the main process exits; its children may outlive it by a few milliseconds.
    if (pid !== undefined) await killProcessGroup(pid);
  }
}

/**
 * The browser flags with Chrome's WebMCP feature on: added to a --enable-features the user gave (Chrome reads only
 * the last one), or as one of its own.
 */
function withWebMcp(args: readonly string[], on: boolean): string[] {
  if (!on) return [...args];
  let at = -1;
  args.forEach((a, i) => {
    if (a.startsWith('--enable-features=')) at = i;
  });
  if (at < 0) return [...args, '--enable-features=WebMCP'];
  const out = [...args];
  out[at] = `${args[at]},WebMCP`;
  return out;
}

/** Flags that would open the launched browser to every local process. */
const REFUSED_ARGS = ['--remote-debugging-port', '--remote-debugging-address', '--remote-debugging-pipe', '--remote-allow-origins'];

/** Why one of these browser flags is refused, or undefined when all are fine. */
export function refusedBrowserArg(args: readonly string[]): string | undefined {
  const bad = args.find((arg) => REFUSED_ARGS.includes(arg.split('=')[0]!));
  if (bad === undefined) return undefined;
  return `the browser flag ${bad} is refused: the launched browser is driven over a private pipe so that no other process can reach its pages; to share a browser you started yourself, use --cdp-endpoint`;
}
