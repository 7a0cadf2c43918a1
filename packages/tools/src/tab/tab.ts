import { TOOL_SETTING_DEFAULTS } from '@browsermcp/protocol';
import { changesSinceBeforeLast, snapshotChanges, type SnapshotChanges } from './snapshot-changes.js';
import type { CDPSession, ElementHandle, Frame, Page, Protocol } from 'puppeteer-core';
import { cdp } from '../engine/cdp.js';
import { ToolError } from '../engine/errors.js';
import { FrameRefs } from '../engine/frames.js';
import { inPage } from '../engine/in-page.js';
import { abortRequest } from './abort-request.js';
import { OwnNavigation } from './own-navigation.js';
import { holdPrints } from './print-guard.js';
import { RequestGuard } from './request-guard.js';
import type { UploadFile } from '../engine/files.js';
import { TabActions, type ActionOptions } from './tab-actions.js';
import { TabLogs } from './tab-logs.js';
import { TabModals, type ModalState } from './tab-modals.js';
import { TabSnapshots, type SnapshotOptions } from './tab-snapshot.js';
import { delay, withTimeout } from '../engine/timing.js';
import { listWebMcpTools, watchWebMcpChanges, webMcpSnapshotLines, type WebMcpListing } from '../engine/webmcp.js';

/**
 * How long an answer waits for the page's title: far longer than a read takes on a loaded machine (500 ms once cut a
 * 300-row table's), far shorter than a page that never answers.
 */
const TITLE_WAIT_MS = 3_000;
/** How long a picture of a tab behind the person's may wait for Chrome to paint it, and how often it asks. */
const BACKGROUND_CAPTURE_MS = 10_000;
const FRAME_ASK_MS = 250;

export type { ModalState } from './tab-modals.js';
export type { SnapshotOptions } from './tab-snapshot.js';

export interface CaptureOptions {
  /** The person's own browser: a tab behind theirs is not brought forward. */
  background?: boolean | undefined;
  /** Fields whose text matches one of these are painted over in the picture (--secrets: ToolSession.secretMasks). */
  mask?: readonly RegExp[] | undefined;
}

/**
 * One browser tab as the tools see it: the puppeteer Page and what the tools keep about it, each part its own
 * module: logs (console and network), the request guard (origin lists), modals (dialogs, file choosers), refs
 * (numbering, frames, targets), snapshots and actions. Tools call the tab; the tab hands each call to its part.
 */
export class Tab {
  readonly page: Page;
  /** What the page logged and fetched, per document. */
  readonly logs: TabLogs;
  /** The session's origin lists, held on every request the page makes. */
  readonly guard: RequestGuard;
  private readonly modals: TabModals;
  private readonly ownNavigation: OwnNavigation;
  private readonly refs: FrameRefs;
  private readonly snapshots: TabSnapshots;
  private readonly actions: TabActions;
  private closed = false;
  /** Times the page called window.print() since the last answer (print-guard.ts: nothing was printed). */
  printsAsked = 0;
  /** A tab of the person's browser, behind their own: Chrome paints it only now and then (see `framesWhile`). */
  private readonly background: boolean;
  /** CSS media emulated in this tab (browser_emulate_media): Chromium takes the whole set on every change. */
  readonly media: { features: Record<string, string>; type: 'screen' | 'print' | null } = { features: {}, type: null };

  /** The page's own tools (WebMCP) as last collected, with a snapshot or by browser_webmcp_*; undefined when off. */
  webmcp: WebMcpListing | undefined;
  /** Whether the session collects WebMCP tools now (its config may change: the person's setting). */
  private readonly webmcpOn: () => boolean;

  constructor(
    page: Page,
    options: {
      refContext?: string | undefined;
      background?: boolean | undefined;
      settleTimeoutMs?: number | undefined;
      webmcp?: (() => boolean) | undefined;
    } = {},
  ) {
    this.page = page;
    this.webmcpOn = options.webmcp ?? (() => true);
    // Another document, other tools: the last listing is not this page's.
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.webmcp = undefined;
    });
    // The page says its tools changed: collected again now, so the next answer says so even without a snapshot.
    void watchWebMcpChanges(page, () => {
      if (this.webmcpOn() && !this.isClosed) void this.refreshWebMcp().catch(() => undefined);
    }).catch(() => undefined);
    // Before the page's own scripts: its window.print() would stop it behind Chrome's print dialog.
    void holdPrints(page, () => void this.printsAsked++).catch(() => undefined);
    this.background = options.background === true;
    this.logs = new TabLogs(page);
    this.guard = new RequestGuard(page);
    this.modals = new TabModals(page);
    this.ownNavigation = new OwnNavigation(page);
    this.guard.takeNavigation = (request) => {
      if (!this.ownNavigation.refuses(request)) return this.modals.holdIfAsked(request);
      void abortRequest(page, request, 'aborted');
      return true;
    };
    this.refs = new FrameRefs(page, options.refContext);
    this.snapshots = new TabSnapshots(page, this.refs);
    this.actions = new TabActions(page, this.modals, this.logs, options.settleTimeoutMs);
    page.on('close', () => {
      this.closed = true;
    });
  }

  get isClosed(): boolean {
    return this.closed || this.page.isClosed();
  }

  /** The page's own CDP session, for the few calls puppeteer has no API for. */
  cdp(): CDPSession {
    return cdp(this.page);
  }

  async title(): Promise<string> {
    try {
      // Bounded: after a navigation gave up (--timeout-navigation), the read waits for the slow page's next document,
      // which may never come; the answer then goes without the title.
      return (await withTimeout(this.page.title(), TITLE_WAIT_MS)) ?? '';
    } catch {
      return '';
    }
  }

  /**
   * Takes a picture of the page: one `Page.captureScreenshot` with `params`. Chrome paints only the tab in front of
   * its window, and a capture of a tab it does not paint waits for a frame that never comes (and holds up other
   * captures meanwhile). So a hidden tab is brought to the front first, unless the session must stay in the background
   * (the person's own browser): then the picture is refused at once, saying why. An agent's tab there is not hidden
   * (the extension emulates focus for it) but Chrome paints it only now and then: see paintedCapture.
   */
  async capture(params: Protocol.Page.CaptureScreenshotRequest, options: CaptureOptions = {}): Promise<Uint8Array> {
    if (!options.mask?.length) return this.captureAsIs(params, options);
    // Every frame paints over its fields that hold a secret for the length of the capture (injected/mask.ts).
    const patterns = options.mask.map((p): [string, string] => [p.source, p.flags]);
    const frames = this.page.frames();
    await Promise.all(frames.map((frame) => inPage(frame, 'maskSecretFields', patterns).catch(() => 0)));
    try {
      return await this.captureAsIs(params, options);
    } finally {
      await Promise.all(frames.map((frame) => inPage(frame, 'unmaskSecretFields').catch(() => undefined)));
    }
  }

  private async captureAsIs(params: Protocol.Page.CaptureScreenshotRequest, options: CaptureOptions): Promise<Uint8Array> {
    const hidden = await inPage(this.page.mainFrame(), 'isHidden').catch(() => false);
    if (hidden && options.background) {
      throw new ToolError(
        'This tab is behind another tab in its window, and Chrome paints only the tab in front, so it cannot be ' +
          "photographed without taking the person's focus. browser_snapshot reads the page in the background; a screenshot works once the person looks at the tab.",
      );
    }
    if (hidden) await this.page.bringToFront().catch(() => undefined);
    // atob, not Buffer: the extension runs this in the browser.
    const shoot = () =>
      cdp(this.page)
        .send('Page.captureScreenshot', params)
        .then(({ data }) => Uint8Array.from(atob(data), (c) => c.charCodeAt(0)));
    return options.background ? this.paintedCapture(shoot, params) : shoot();
  }

  /** The viewport as a capture's clip, in the page's coordinates (where it is scrolled to), at `scale`. */
  async viewportClip(scale = 1): Promise<Protocol.Page.Viewport> {
    const v = await this.page.evaluate(() => ({
      x: visualViewport!.pageLeft,
      y: visualViewport!.pageTop,
      width: visualViewport!.width,
      height: visualViewport!.height,
    }));
    return { ...v, scale };
  }

  /**
   * A capture of a tab behind the person's: Chrome paints such a tab only now and then, and a capture waits for its
   * next frame (measured in a headed Chromium 156: about one a second, and at times none until another capture asks
   * for one). So while the capture waits, the same capture is asked for again every 250 ms, up to 10 s: Chrome
   * answers captures that wait together with one frame, and gave a waiting capture the clip or the size of a
   * different one beside it (an element's picture at the page's left edge, a viewport's one pixel wide).
   */
  private async paintedCapture(shoot: () => Promise<Uint8Array>, params: Protocol.Page.CaptureScreenshotRequest): Promise<Uint8Array> {
    let done = false;
    const shot = shoot().finally(() => {
      done = true;
    });
    const deadline = Date.now() + BACKGROUND_CAPTURE_MS;
    while (
      !(await Promise.race([
        shot.then(
          () => true,
          () => true,
        ),
        delay(FRAME_ASK_MS).then(() => done),
      ]))
    ) {
      if (Date.now() >= deadline) {
        throw new ToolError(
          `Chrome did not paint this tab within ${BACKGROUND_CAPTURE_MS / 1000} s, so no picture could be taken. Try again, or ask the person to look at the tab.`,
        );
      }
      void cdp(this.page)
        .send('Page.captureScreenshot', params)
        .catch(() => undefined);
    }
    return shot;
  }

  /** A capture of one pixel: Chrome makes a frame for it, which also delivers the input waiting for one. */
  private askForFrame(): Promise<void> {
    return cdp(this.page)
      .send('Page.captureScreenshot', { format: 'jpeg', quality: 1, clip: { x: 0, y: 0, width: 1, height: 1, scale: 1 } })
      .then(
        () => undefined,
        () => undefined,
      );
  }

  /**
   * Runs `work` (an action's pointer moves) with a frame asked for at all times: Chrome hands a pointer move to the page
   * at its next frame, and a tab behind the person's gets one about a second (measured in Chromium 156: a hover took 0.75 s
   * and an 8-step drag 9 s through the extension, against 0.1 s in a launched browser).
   */
  private async framesWhile<T>(work: () => Promise<T>): Promise<T> {
    let done = false;
    void (async () => {
      while (!done && !this.closed) await Promise.race([this.askForFrame(), delay(FRAME_ASK_MS)]);
    })();
    try {
      return await work();
    } finally {
      done = true;
    }
  }

  // Modals (tab-modals.ts).
  modalStates(): readonly ModalState[] {
    return this.modals.states();
  }
  takeModal<K extends ModalState['kind']>(kind: K): Extract<ModalState, { kind: K }> | undefined {
    return this.modals.take(kind);
  }
  restoreModal(state: ModalState): void {
    this.modals.restore(state);
  }
  armFileChooser(): void {
    this.modals.armFileChooser();
  }
  acceptChooser(state: Extract<ModalState, { kind: 'fileChooser' }>, files: readonly UploadFile[]): Promise<void> {
    return this.modals.acceptChooser(state, files);
  }
  dismissingDialogs<T>(work: (arrived: () => number) => Promise<T>): Promise<{ value: T; open: number; arrived: number }> {
    return this.modals.dismissingDialogs(work);
  }
  /**
   * Runs the agent's navigation away from the page (to `href`; none for about:blank): "Leave site?" is answered
   * Leave, and the page's own navigations cannot cut it off (own-navigation.ts).
   */
  leavingPage<T>(work: () => Promise<T>, href?: string): Promise<T> {
    return this.modals.leavingPage(() => this.ownNavigation.run(href, work));
  }
  /** Whether the page tried a navigation of its own while the agent's last one was on its way. */
  get pageNavigatedDuringOurs(): boolean {
    return this.ownNavigation.pageNavigated;
  }
  unlessModal<T>(work: () => Promise<T>): Promise<{ value: T } | 'modal'> {
    return this.modals.unlessModal(work);
  }

  // Snapshots and targets (tab-snapshot.ts, frames.ts).
  /** The snapshot; of the whole page, it ends with the tools the page registers (WebMCP), collected alongside. */
  /** The whole-page snapshot the agent was last shown of this tab, and the document it was of. */
  private lastShown: { document: string; text: string } | undefined;
  /** The page section (URL, title, page tools) the agent was last shown of this tab. */
  pageShown: string | undefined;

  /**
   * The one shown before `lastShown` where that was shown whole (the agent has read both in full): the base of the
   * changes when the last one was the page behind a popup hidden (see SnapshotChanges.since).
   */
  private beforeShown: { document: string; text: string } | undefined;

  /**
   * Notes a whole-page snapshot as shown to the agent (`whole`: in full, not as changes): the next action's answer
   * gives what changed since.
   */
  shown(text: string, whole: boolean): void {
    const document = this.snapshots.mainDocument();
    this.beforeShown = whole && this.lastShown?.document === document ? this.lastShown : undefined;
    this.lastShown = document === undefined ? undefined : { document, text };
  }

  /** What changed since the snapshot last shown, or undefined when the whole page should go (another document). */
  changesSinceShown(text: string): SnapshotChanges | undefined {
    const last = this.lastShown;
    const document = this.snapshots.mainDocument();
    if (!last || last.document !== document) return undefined;
    const before = this.beforeShown;
    return snapshotChanges(last.text, text) ?? (before?.document === document ? changesSinceBeforeLast(before.text, last.text, text) : undefined);
  }

  async snapshot(opts: SnapshotOptions): Promise<string> {
    if (!this.webmcpOn()) this.webmcp = undefined;
    if (opts.target !== undefined || !this.webmcpOn()) return this.snapshots.take(opts);
    const [text, listing] = await Promise.all([this.snapshots.take(opts), this.refreshWebMcp()]);
    const lines = webMcpSnapshotLines(listing);
    return lines.length ? `${text}\n${lines.join('\n')}` : text;
  }
  /** Collects the page's WebMCP tools again (every frame). */
  async refreshWebMcp(): Promise<WebMcpListing> {
    this.webmcp = await listWebMcpTools(this.page);
    return this.webmcp;
  }
  /** Runs `fn` on a target's live element (a ref or a CSS selector), then lets the handle go. */
  async withElement<T>(target: string, fn: (el: ElementHandle<Element>, frame: Frame) => Promise<T>): Promise<T> {
    const { handle, frame } = await this.refs.elementFor(target);
    try {
      return await fn(handle, frame);
    } finally {
      // Not awaited: while a dialog the action opened is up, the renderer answers nothing, releasing included.
      void handle.dispose().catch(() => undefined);
    }
  }

  // Actions (tab-actions.ts).
  actionPoint(
    handle: ElementHandle<Element>,
    frame: Frame,
    label: string,
    needsEnabled = true,
    timeoutMs = TOOL_SETTING_DEFAULTS.actionTimeoutMs,
  ): Promise<{ x: number; y: number; opensChooser: boolean }> {
    return this.actions.actionPoint(handle, frame, label, needsEnabled, timeoutMs);
  }
  runAction<T>(action: () => Promise<T>, opts: ActionOptions = {}): Promise<void> {
    return this.actions.run(this.background && opts.pointerMoves ? () => this.framesWhile(action) : action, opts);
  }
}
