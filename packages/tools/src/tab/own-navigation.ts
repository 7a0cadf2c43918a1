import type { HTTPRequest, Page } from 'puppeteer-core';
import { cdp, requestIdOf } from '../engine/cdp.js';
import { replayLostCommit } from './lost-commit.js';

/** The main frame's CDP id (puppeteer's frame keeps it undeclared). */
const frameIdOf = (page: Page): string | undefined => (page.mainFrame() as unknown as { _id?: string })._id;

/** A URL without its #fragment, as a request carries it. */
const withoutFragment = (url: string): string => url.split('#')[0] ?? url;

/** How many of the page's navigation requests started before our commit are remembered. */
const MAX_STARTED = 64;

/** An agent's navigation on its way. */
interface Going {
  /** Where it goes (no #fragment); undefined for one that makes no request (about:blank). */
  href: string | undefined;
  /** CDP's id of its request, once seen: the loader id of the document it brings. */
  requestId: string | undefined;
  committed: boolean;
  /** Lifecycle events of its document seen before Chrome told of its commit (lost-commit.ts). */
  lifecycle: string[];
  replaying: boolean;
}

/**
 * Keeps an agent's navigation from being cut off by the page it leaves. A page that navigates itself (a timer every
 * few milliseconds) starts a navigation of its own while ours is on its way, and the newer one wins. From the start
 * of ours until its document commits, the page's own navigations of the main frame are refused (where requests are
 * intercepted: always in the person's browser, where a page's scripts cannot be switched off). The document that
 * commits is then free to navigate (a sign-in page's script redirect).
 */
export class OwnNavigation {
  private going: Going | undefined;
  /** The page started a navigation of its own while the last of ours was on its way (and was refused). */
  private pageTried = false;
  /**
   * Navigation requests of the main frame started while ours was on its way (ours among them): one the page we left
   * started before our commit may reach interception only after it, and is still the page's own.
   */
  private readonly startedBeforeCommit = new Set<string>();

  constructor(page: Page) {
    const client = cdp(page);
    // For a navigation, CDP's request id is the loader id of the document it brings.
    client.on('Page.frameNavigated', ({ frame }) => {
      if (frame.parentId === undefined && this.going && frame.loaderId === this.going.requestId) this.going.committed = true;
    });
    // A navigation that makes no request (about:blank) is known by the loader Chrome starts it with.
    client.on('Page.frameStartedNavigating', ({ frameId, url, loaderId, navigationType }) => {
      const going = this.going;
      if (
        going &&
        going.href === undefined &&
        going.requestId === undefined &&
        url === 'about:blank' &&
        navigationType === 'differentDocument' &&
        frameId === frameIdOf(page)
      )
        going.requestId = loaderId;
    });
    // Our document shows signs of life without Chrome having told of its commit (lost-commit.ts): what it left out is sent.
    client.on('Page.lifecycleEvent', ({ frameId, loaderId, name }) => {
      const going = this.going;
      if (!going || going.committed || loaderId !== going.requestId || frameId !== frameIdOf(page)) return;
      going.lifecycle.push(name);
      if (name === 'init' || going.replaying) return;
      going.replaying = true;
      void replayLostCommit(page, loaderId, () => going.committed, going.lifecycle).catch(() => undefined);
    });
    client.on('Network.requestWillBeSent', ({ requestId, loaderId, type, frameId }) => {
      if (!this.going || this.going.committed || type !== 'Document' || requestId !== loaderId || frameId !== frameIdOf(page)) return;
      this.startedBeforeCommit.add(requestId);
      // A page that navigates itself every few milliseconds during a slow navigation: the oldest are long settled.
      if (this.startedBeforeCommit.size > MAX_STARTED) this.startedBeforeCommit.delete(this.startedBeforeCommit.values().next().value ?? '');
    });
    // The page asks for a navigation of its own: Chrome may cancel ours for it before any request of its is seen.
    client.on('Page.frameRequestedNavigation', ({ frameId }) => {
      if (this.going && !this.going.committed && frameId === frameIdOf(page)) this.pageTried = true;
    });
  }

  /** Runs `work`, a navigation to `href` (or, with no address, one that makes no request: about:blank). */
  async run<T>(href: string | undefined, work: () => Promise<T>): Promise<T> {
    const outer = this.going;
    this.going = { href: href === undefined ? undefined : withoutFragment(href), requestId: undefined, committed: false, lifecycle: [], replaying: false };
    this.pageTried = false;
    this.startedBeforeCommit.clear();
    try {
      return await work();
    } finally {
      this.going = outer;
    }
  }

  /** Whether this navigation request of the main frame is the page's own, started while ours is on its way. */
  refuses(request: HTTPRequest): boolean {
    const going = this.going;
    if (!going || going.committed) {
      // Ours is always let go before it commits: one seen before the commit and asked about after is the left page's.
      const id = requestIdOf(request);
      if (id === undefined || request.redirectChain().length > 0 || !this.startedBeforeCommit.delete(id)) return false;
      this.pageTried = true;
      return true;
    }
    if (going.requestId === undefined && going.href !== undefined && request.redirectChain().length === 0 && withoutFragment(request.url()) === going.href) {
      going.requestId = requestIdOf(request);
      return false;
    }
    const refused = going.requestId === undefined || requestIdOf(request) !== going.requestId;
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
