import type { ConnectionTransport } from 'puppeteer-core';

/**
 * An address whose navigation fails at once, with no request made, onto Chrome's error page, a document with no
 * origin (net::ERR_INVALID_URL). Measured in Chromium 156: a document the extension sends to about:blank (through
 * its debugger or chrome.tabs) gets the extension's own origin, and from there a script can frame or open the
 * extension's pages and reach their chrome.storage; about:blank that this error page opens has no origin.
 */
export const ORIGINLESS_URL = 'about:srcdoc';

/** How long each step of an origin-free navigation may take to show (both are local: no network). */
const STEP_TIMEOUT_MS = 3000;
const STEP_POLL_MS = 20;

interface Message {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
}

interface FrameNavigated {
  frame: { url: string; securityOrigin?: string };
}

/** The part of puppeteer's ExtensionTransport this wraps (its type is not exported where the bundle imports it). */
interface TabTransport extends ConnectionTransport {
  onmessage?: (message: string) => void;
  onclose?: () => void;
}

/**
 * puppeteer's ExtensionTransport for an agent's tab, with the two rules that keep the agent out of the extension:
 * - Page.navigate to an about: address (the engine's way out of a page, or the agent's own) is done in two steps
 *   that leave no origin (the error page of ORIGINLESS_URL, which then replaces itself), never as the extension;
 * - a frame that commits with this extension's address or origin makes the debugger let go at once
 *   (`onExtensionFrame`): no agent command reaches it.
 */
export class AgentTransport implements ConnectionTransport {
  onmessage?: (message: string) => void;
  onclose?: () => void;

  constructor(
    private readonly inner: TabTransport,
    private readonly tabId: number,
    private readonly onExtensionFrame: (url: string) => void,
  ) {
    inner.onmessage = (message) => {
      this.watch(message);
      this.onmessage?.(message);
    };
    inner.onclose = () => this.onclose?.();
  }

  send(message: string): void {
    const parsed = JSON.parse(message) as Message;
    const url = parsed.params?.url;
    if (parsed.method === 'Page.navigate' && typeof url === 'string' && /^about:/i.test(url.trim())) {
      void this.navigateWithoutOrigin(parsed, url.trim());
      return;
    }
    this.inner.send(message);
  }

  close(): void {
    this.inner.close();
  }

  private watch(message: string): void {
    // Most messages are answers (a screenshot's can be megabytes): only frame navigations are read.
    if (!message.includes('"Page.frameNavigated"')) return;
    const parsed = JSON.parse(message) as Message;
    if (parsed.method !== 'Page.frameNavigated') return;
    const { frame } = parsed.params as unknown as FrameNavigated;
    // This extension's own origin only: other extensions' frames in a page (a password manager's) are theirs, out of
    // this debugger's reach and of the page's scripts, and must not stop the agent.
    const own = chrome.runtime.getURL('').replace(/\/$/, '');
    if (frame.url.startsWith(`${own}/`) || frame.securityOrigin === own) this.onExtensionFrame(frame.url);
  }

  private command<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    return chrome.debugger.sendCommand({ tabId: this.tabId }, method, params) as Promise<T>;
  }

  /** Evaluates in the tab's page; undefined when it fails or the page is too busy to answer within a step. */
  private async evaluate<T>(expression: string): Promise<T | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), STEP_TIMEOUT_MS);
    });
    const answer = await Promise.race([
      this.command<{ result?: { value?: T } }>('Runtime.evaluate', { expression, returnByValue: true }).catch(() => undefined),
      late,
    ]);
    clearTimeout(timer);
    return answer?.result?.value;
  }

  /** Waits until the main frame's document says `ready` of itself; false when it never does. */
  private until(ready: string): Promise<boolean> {
    return this.poll(async () => (await this.evaluate<boolean>(ready)) === true);
  }

  /** Polls `check` every step until it holds (true) or a step's time is up (false). */
  private async poll(check: () => Promise<boolean>): Promise<boolean> {
    for (const end = Date.now() + STEP_TIMEOUT_MS; Date.now() < end; ) {
      if (await check()) return true;
      await new Promise((resolve) => setTimeout(resolve, STEP_POLL_MS));
    }
    return false;
  }

  /** Waits until the main frame shows the error page of ORIGINLESS_URL that the navigation `loaderId` brings. */
  private onOriginlessPage(loaderId: string): Promise<boolean> {
    return this.poll(async () => {
      const frame = (await this.command<{ frameTree: { frame: { loaderId: string; unreachableUrl?: string } } }>('Page.getFrameTree').catch(() => undefined))
        ?.frameTree.frame;
      return frame?.loaderId === loaderId && frame.unreachableUrl === ORIGINLESS_URL;
    });
  }

  private async navigateWithoutOrigin(message: Message, url: string): Promise<void> {
    const reply = (result: Record<string, unknown>) =>
      setTimeout(() => this.onmessage?.(JSON.stringify({ id: message.id, sessionId: message.sessionId, method: message.method, result })), 0);
    const tree = await this.command<{ frameTree: { frame: { id: string } } }>('Page.getFrameTree').catch(() => undefined);
    const main = tree?.frameTree.frame.id;
    const frameId = typeof message.params?.frameId === 'string' ? message.params.frameId : main;
    // Only the tab's own document: a frame of another process (its own session) or a child frame is refused.
    if (main === undefined || frameId !== main || (message.sessionId !== undefined && message.sessionId !== 'pageTargetSessionId')) {
      reply({ frameId, errorText: 'net::ERR_ABORTED' });
      return;
    }
    const started = await this.command<{ loaderId?: string }>('Page.navigate', { url: ORIGINLESS_URL }).catch(() => undefined);
    // That navigation's own error page: a tab already on one (a refused navigation's) would pass a look at its address
    // before this one replaced it, and the next step would run in the page on its way out.
    const onErrorPage =
      started?.loaderId !== undefined && (await this.onOriginlessPage(started.loaderId)) && (await this.until(`location.href.startsWith('chrome-error:')`));
    const replaced = onErrorPage && (await this.evaluate(`location.replace(${JSON.stringify(url)}), true`)) === true;
    const arrived = replaced && (await this.until(`location.href === ${JSON.stringify(url)} && origin === 'null' && document.readyState === 'complete'`));
    const loaderId = (await this.command<{ frameTree: { frame: { loaderId: string } } }>('Page.getFrameTree').catch(() => undefined))?.frameTree.frame.loaderId;
    reply(arrived && loaderId ? { frameId: main, loaderId } : { frameId: main, errorText: 'net::ERR_ABORTED' });
  }
}
