import { TOOL_SETTING_DEFAULTS } from '@browsermcp/protocol';
import type { ElementHandle, Frame, HTTPRequest, Page } from 'puppeteer-core';
import { ToolError } from '../engine/errors.js';
import { frameOffset } from '../engine/frames.js';
import { inPage } from '../engine/in-page.js';
import type { InputKind, InputReceived } from '../injected/input.js';
import type { TabLogs } from './tab-logs.js';
import type { TabModals } from './tab-modals.js';
import { delay, withTimeout } from '../engine/timing.js';

// After an action: let the page answer (handlers, microtasks, zero timers), then wait for quiet if it is changing.
const SETTLE_QUIET_MS = 50;
/** Between two looks at an element an animation moves: about a frame. */
const STEADY_MS = 20;
// How long a click on a file input waits for Chromium to report the chooser it opens.
const CHOOSER_CAP_MS = 2000;
/** How long an action that must start a navigation (leaving past "Leave site?") may take to start it. */
const NAVIGATION_START_CAP_MS = 5000;

export interface ActionOptions {
  expectChooser?: boolean;
  input?: InputTarget | undefined;
  /**
   * The action lets a navigation go (Leave on "Leave site?"): its answer waits for that navigation, which the browser
   * may start a moment after the action itself is done — or the held request itself, already under way.
   */
  expectNavigation?: true | HTTPRequest | undefined;
  /** The action moves the pointer (hover, drag): in a tab Chrome paints only now and then, each move waits for a frame. */
  pointerMoves?: true | undefined;
}
const NAVIGATION_CAP_MS = 10_000;
const REQUESTS_CAP_MS = 5_000;
// How long an action's first input event may take to reach the page (moves and keys can wait for the next frame; a
// background tab on a loaded machine gets its input later: 250 ms said "none" to clicks that then landed), and how
// often the count is read meanwhile: a click that landed is seen at once, only a dropped one waits it all.
const INPUT_WAIT_MS = 1000;
const INPUT_POLL_MS = 100;
// How long reading that count may take before the check gives up (a busy or blocked page: no verdict).
const INPUT_CHECK_CAP_MS = 1000;

/** What an action sends input to, so that `run` can tell whether the page received any of it. */
export interface InputTarget {
  /** The frame whose document the input is for (the target element's). */
  frame: Frame;
  /** The action in words for the error: "click", "typing", "key press"… */
  what: string;
  /** Which input events must reach the page for the action to have happened. */
  kind: InputKind;
}

/**
 * Acting on a tab: waiting until an element can take the action (actionability), and after it, waiting for what it
 * caused (a navigation, the requests it started, the DOM settling) — never a fixed sleep.
 */
export class TabActions {
  constructor(
    private readonly page: Page,
    private readonly modals: TabModals,
    private readonly logs: TabLogs,
    /** --timeout-settle: the longest an action waits for the page to go quiet after it; 0 does not wait. */
    private readonly settleTimeoutMs = TOOL_SETTING_DEFAULTS.settleTimeoutMs,
  ) {}

  /**
   * Waits until the element can be acted on (visible, enabled, not covered), scrolled into view, and returns a
   * point in main-frame viewport coordinates.
   */
  async actionPoint(
    handle: ElementHandle<Element>,
    frame: Frame,
    label: string,
    needsEnabled = true,
    timeoutMs = TOOL_SETTING_DEFAULTS.actionTimeoutMs,
  ): Promise<{ x: number; y: number; opensChooser: boolean }> {
    const deadline = Date.now() + timeoutMs;
    let previous: { x: number; y: number } | undefined;
    for (let attempt = 0; ; attempt++) {
      const point = await inPage(frame, 'prepareAction', handle, needsEnabled);
      // While an animation moves it, the element must stand still between two looks (as Playwright's "stable"), timed
      // here: a background tab runs no animation frames and slows its timers.
      const settled = !point.moving || (previous !== undefined && Math.abs(previous.x - point.x) < 1 && Math.abs(previous.y - point.y) < 1);
      previous = point.ok ? { x: point.x, y: point.y } : undefined;
      if (point.ok && !settled && Date.now() < deadline) {
        await delay(STEADY_MS);
        continue;
      }
      if (point.ok) {
        const offset = frame === this.page.mainFrame() ? { x: 0, y: 0 } : await frameOffset(frame);
        return { x: point.x + offset.x, y: point.y + offset.y, opensChooser: point.opensChooser === true };
      }
      if (Date.now() >= deadline) {
        throw new ToolError(`Could not act on ${label}: ${point.reason}. Take a new snapshot to see the page as it is now.`);
      }
      // Back off a little more each time; a frame is about 16 ms in headless Chromium.
      await delay(Math.min(20 * (attempt + 1), 200));
    }
  }

  /**
   * Runs an action and then waits for what it caused: a navigation it started (until DOMContentLoaded), the
   * requests it started, and the DOM settling — never a fixed sleep. A dialog or file chooser ends the wait.
   * `expectChooser`: the action clicked a file input, whose chooser Chromium reports a moment after the click
   * itself is done; wait for it (capped) so the answer carries the modal state.
   */
  async run<T>(action: () => Promise<T>, opts: ActionOptions = {}): Promise<void> {
    const page = this.page;
    const started: HTTPRequest[] = [];
    let navigation: HTTPRequest | undefined = opts.expectNavigation === true ? undefined : opts.expectNavigation;
    let navigationStarted = (): void => undefined;
    const startedNavigating = new Promise<void>((resolve) => (navigationStarted = resolve));
    const onRequest = (req: HTTPRequest) => {
      if (req.isNavigationRequest() && req.frame() === page.mainFrame()) {
        navigation = req;
        navigationStarted();
      } else if (req.resourceType() === 'fetch' || req.resourceType() === 'xhr' || req.isNavigationRequest()) started.push(req);
    };
    page.on('request', onRequest);
    const modal = this.modals.opened();
    const urlBefore = page.url();
    const input = opts.input && (await this.inputCount(opts.input));
    try {
      const outcome = await Promise.race([action().then(() => 'done' as const), modal.promise]);
      if (outcome === 'modal') return;
      if (opts.expectNavigation === true && navigation === undefined) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, NAVIGATION_START_CAP_MS)));
        await Promise.race([startedNavigating, modal.promise, cap]);
        clearTimeout(timer);
      }
      if (input && opts.input) await this.checkReceived(opts.input, input, modal.promise);
      const settled = Promise.race([this.settle(urlBefore, () => navigation, started), modal.promise]);
      if (!opts.expectChooser) {
        await settled;
        return;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, CHOOSER_CAP_MS)));
      // The page may still cancel the chooser (preventDefault on the click): then the cap ends the wait.
      await Promise.all([settled, Promise.race([modal.promise, cap])]);
      clearTimeout(timer);
    } finally {
      page.off('request', onRequest);
      modal.dispose();
    }
  }

  /**
   * The page's count of trusted input events of the target's kind, or undefined when it cannot say within the cap
   * (a busy page, a gone frame) or a modal opens meanwhile: then there is no verdict.
   */
  private readCount(target: InputTarget, modal?: Promise<unknown>): Promise<InputReceived | undefined> {
    return Promise.race([
      inPage(target.frame, 'inputReceived', target.kind).catch(() => undefined),
      delay(INPUT_CHECK_CAP_MS).then(() => undefined),
      ...(modal ? [modal.then(() => undefined)] : []),
    ]);
  }

  /** The count before the action; undefined (no check) when focus sits in a child frame or the page cannot answer. */
  private async inputCount(target: InputTarget): Promise<{ doc: string; count: number } | undefined> {
    const seen = await this.readCount(target);
    return seen && !seen.focusInChildFrame ? seen : undefined;
  }

  /**
   * Never a false success: an action none of whose input events reached the page (Chrome drops input to a tab it
   * treats as hidden) is an error. A new document, a modal, a page too busy to answer or a gone frame: no verdict.
   */
  private async checkReceived(target: InputTarget, before: { doc: string; count: number }, modal: Promise<unknown>): Promise<void> {
    // Read from here, not with a timer in the page: Chrome throttles the timers of a page it treats as hidden.
    const read = () => this.readCount(target, modal);
    let after = await read();
    const until = Date.now() + INPUT_WAIT_MS;
    while (after !== undefined && after.doc === before.doc && after.count === before.count && Date.now() < until) {
      await delay(INPUT_POLL_MS);
      after = await read();
    }
    if (after === undefined || after.doc !== before.doc || after.count > before.count) return;
    throw new ToolError(
      `The page received none of the input of this ${target.what}: Chrome did not deliver it to the tab, so nothing happened. ` +
        "In the person's browser this happens to a tab Chrome treats as hidden. Take a snapshot and try again; if it happens again, ask the person to look at the tab.",
    );
  }

  private async settle(urlBefore: string, navigation: () => HTTPRequest | undefined, started: HTTPRequest[]): Promise<void> {
    const page = this.page;
    if (this.settleTimeoutMs > 0) {
      try {
        // Background tabs throttle timers to about one a second: the cap is kept from here too.
        await withTimeout(inPage(page.mainFrame(), 'settleDom', urlBefore, SETTLE_QUIET_MS, this.settleTimeoutMs), this.settleTimeoutMs + 100);
      } catch {
        // The document went away: a navigation is under way.
      }
    }
    const nav = navigation();
    if (nav) await waitForNavigationDone(page, nav, NAVIGATION_CAP_MS);
    const pending = started.filter((r) => this.logs.pending(r));
    if (pending.length) await this.waitForRequests(pending, REQUESTS_CAP_MS);
  }

  private waitForRequests(requests: HTTPRequest[], capMs: number): Promise<void> {
    const page = this.page;
    const left = new Set(requests);
    return new Promise<void>((resolve) => {
      const done = (req: HTTPRequest) => {
        left.delete(req);
        if (!left.size) finish();
      };
      const timer = setTimeout(() => finish(), capMs);
      const finish = () => {
        clearTimeout(timer);
        page.off('requestfinished', done);
        page.off('requestfailed', done);
        resolve();
      };
      page.on('requestfinished', done);
      page.on('requestfailed', done);
    });
  }
}

async function waitForNavigationDone(page: Page, nav: HTTPRequest, capMs: number): Promise<void> {
  const deadline = Date.now() + capMs;
  while (Date.now() < deadline) {
    if (nav.failure()) return;
    const response = nav.response();
    if (response) {
      try {
        await inPage(page.mainFrame(), 'whenParsed', Math.max(1, deadline - Date.now()));
        return;
      } catch {
        // A context torn down by a redirect or another navigation: look again.
      }
    }
    await delay(10);
  }
}
