import type { HTTPRequest, InterceptResolutionAction, Page } from 'puppeteer-core';
import { cdp } from '../engine/cdp.js';
import type { UrlCheck } from '../engine/origins.js';
import { abortRequest } from './abort-request.js';

/** A request or a document the check refused. */
export interface Refusal {
  url: string;
  why: string;
  /** A navigation of the tab's main frame (a link, a redirect, `location.href =`), not one of its page's requests. */
  navigation?: boolean;
}

/**
 * Holds a tab's page to the session's origin lists on every request it makes, not only on the address an agent gives:
 * redirects, links, frames, fetches, `location.href =` (through puppeteer's request interception, so the same in a
 * launched browser and in the extension). Requests the network never sees are checked where they commit: a top-level
 * `data:` or `blob:` document, or the first document of a popup that loaded before the tab was adopted, is sent to
 * about:blank. With no lists nothing is intercepted.
 */
export class RequestGuard {
  private check: UrlCheck | undefined;
  private intercepting = false;
  /** The last change of interception, which the next one waits for. */
  private applying: Promise<void> = Promise.resolve();
  private lastRefusal: Refusal | undefined;
  /** Told of every refusal (the session counts them for the next answer). */
  onRefused: (refusal: Refusal) => void = () => undefined;
  /** Offered each allowed navigation of the main frame: true when it took the request (held or refused). */
  takeNavigation: ((request: HTTPRequest) => boolean) | undefined;

  constructor(private readonly page: Page) {
    page.on('request', (request) => this.decide(request));
    // The CDP event tells an error page (unreachableUrl: a refused navigation) from a document that came in.
    cdp(page).on('Page.frameNavigated', (event) => {
      if (event.frame.parentId === undefined && event.frame.unreachableUrl === undefined) this.committed(event.frame.url);
    });
  }

  /** Applies a new check (or none): interception is on exactly while there is one. Resolves once it holds. */
  use(check: UrlCheck | undefined): Promise<void> {
    this.check = check;
    this.applying = this.applying.then(async () => {
      const want = this.check !== undefined;
      if (want === this.intercepting || this.page.isClosed()) return;
      this.intercepting = want;
      await this.page.setRequestInterception(want).catch(() => undefined);
      if (want) this.committed(this.page.url());
    });
    return this.applying;
  }

  /** The last refusal, for an answer that must say why a navigation failed. */
  get last(): Refusal | undefined {
    return this.lastRefusal;
  }

  /** Forgets the last refusal: a navigation starts. */
  reset(): void {
    this.lastRefusal = undefined;
  }

  private refuse(url: string, why: string, navigation = false): void {
    this.lastRefusal = { url, why, navigation };
    this.onRefused(this.lastRefusal);
  }

  private decide(request: HTTPRequest): void {
    // Not paused (no lists, or a data: URL): nothing to decide. Every paused one must be let go, whatever the check says.
    if (request.interceptResolutionState().action === ('disabled' as InterceptResolutionAction)) return;
    const why = this.check?.(request.url());
    if (why) {
      this.refuse(request.url(), why, request.isNavigationRequest() && request.frame() === this.page.mainFrame());
      void abortRequest(this.page, request, 'blockedbyclient');
    } else if (request.isNavigationRequest() && request.frame() === this.page.mainFrame() && this.takeNavigation?.(request)) {
      // Taken: whoever took it lets it go or cancels it.
    } else {
      void request.continue().catch(() => undefined);
    }
  }

  private committed(url: string): void {
    const why = this.check?.(url);
    if (!why) return;
    this.refuse(url, why);
    void this.page.goto('about:blank').catch(() => undefined);
  }
}
