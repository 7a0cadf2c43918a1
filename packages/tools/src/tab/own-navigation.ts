import type { HTTPRequest, Page } from 'puppeteer-core';
import { cdp } from '../engine/cdp.js';

/** CDP's id of a request: puppeteer's CDP request has it, undeclared (puppeteer-core is pinned, as for cdp()). */
const idOf = (request: HTTPRequest): string | undefined => (request as unknown as { id?: string }).id;

/** The main frame's CDP id (puppeteer's frame keeps it undeclared). */
const frameIdOf = (page: Page): string | undefined => (page.mainFrame() as unknown as { _id?: string })._id;

/** A URL without its #fragment, as a request carries it. */
const withoutFragment = (url: string): string => url.split('#')[0] ?? url;

/**
 * Keeps an agent's navigation from being cut off by the page it leaves. A page that navigates itself (a timer every
 * few milliseconds) starts a navigation of its own while ours is on its way, and the newer one wins. From the start
 * of ours until its document commits, the page's own navigations of the main frame are refused (where requests are
 * intercepted: always in the person's browser, where a page's scripts cannot be switched off). The document that
 * commits is then free to navigate (a sign-in page's script redirect).
 */
export class OwnNavigation {
  private going: { href: string | undefined; requestId: string | undefined; committed: boolean } | undefined;
  /** The page started a navigation of its own while the last of ours was on its way (and was refused). */
  private pageTried = false;

  constructor(page: Page) {
    // For a navigation, CDP's request id is the loader id of the document it brings.
    cdp(page).on('Page.frameNavigated', ({ frame }) => {
      if (frame.parentId === undefined && this.going && frame.loaderId === this.going.requestId) this.going.committed = true;
    });
    // The page asks for a navigation of its own: Chrome may cancel ours for it before any request of its is seen.
    cdp(page).on('Page.frameRequestedNavigation', ({ frameId }) => {
      if (this.going && !this.going.committed && frameId === frameIdOf(page)) this.pageTried = true;
    });
  }

  /** Runs `work`, a navigation to `href` (or, with no address, one that makes no request: about:blank). */
  async run<T>(href: string | undefined, work: () => Promise<T>): Promise<T> {
    const outer = this.going;
    this.going = { href: href === undefined ? undefined : withoutFragment(href), requestId: undefined, committed: false };
    this.pageTried = false;
    try {
      return await work();
    } finally {
      this.going = outer;
    }
  }

  /** Whether this navigation request of the main frame is the page's own, started while ours is on its way. */
  refuses(request: HTTPRequest): boolean {
    const going = this.going;
    if (!going || going.committed) return false;
    if (going.requestId === undefined && going.href !== undefined && request.redirectChain().length === 0 && withoutFragment(request.url()) === going.href) {
      going.requestId = idOf(request);
      return false;
    }
    const refused = going.requestId === undefined || idOf(request) !== going.requestId;
    if (refused) this.pageTried = true;
    return refused;
  }

  /**
   * Whether the page tried to navigate while our last navigation was on its way: Chrome may have let its start cancel
   * ours (a cut-off that is not a download), though its request was refused after.
   */
  get pageNavigated(): boolean {
    return this.pageTried;
  }
}
