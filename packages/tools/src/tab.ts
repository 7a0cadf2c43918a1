import type { CDPSession, Dialog, ElementHandle, FileChooser, Frame, HTTPRequest, Page } from 'puppeteer-core';
import { cdp } from './cdp.js';
import { ToolError } from './errors.js';
import { RequestGuard } from './request-guard.js';
import { inPage, inPageHandle } from './in-page.js';
import { setInputFiles } from './injected/files.js';
import type { WalkResult } from './injected/walk.js';
import { parseRef, refPrefix } from './refs.js';
import type { UploadFile } from './session.js';
import { TabLogs } from './tab-logs.js';
import { withTimeout } from './timing.js';

export type ModalState =
  | { kind: 'dialog'; dialog: Dialog; description: string }
  | {
      kind: 'fileChooser';
      chooser: FileChooser;
      /** The file input that opened it, as CDP names it: uploads of contents (not paths) set its files in the page. */
      backendNodeId: number | undefined;
      description: string;
    };

export interface SnapshotOptions {
  target?: string;
  depth?: number;
  maxChars: number;
  /** Every link's url, not only those the name does not already tell (see walkPage). */
  allUrls?: boolean;
  /** Each element's bounding box, `[box=x,y,width,height]`. */
  boxes?: boolean;
}

// After an action: let the page answer (handlers, microtasks, zero timers), then wait for quiet if it is changing.
const SETTLE_QUIET_MS = 50;
// How long a click on a file input waits for Chromium to report the chooser it opens.
const CHOOSER_CAP_MS = 2000;
const SETTLE_CAP_MS = 1000;
const NAVIGATION_CAP_MS = 10_000;
const REQUESTS_CAP_MS = 5_000;


/**
 * One browser tab as the tools see it: the puppeteer Page plus what the tools remember about it (console and
 * network logs, open dialogs and file choosers, ref numbering).
 */
export class Tab {
  readonly page: Page;
  /** What the page logged and fetched, per document. */
  readonly logs: TabLogs;
  /** The session's origin lists, held on every request the page makes. */
  readonly guard: RequestGuard;
  private modals: ModalState[] = [];
  private modalListeners = new Set<() => void>();
  /** Set while a rescue dismisses dialogs as they open (see dismissingDialogs). */
  private dismissing: { arrived: number } | undefined;
  /** Navigations away from the page in progress (see leavingPage). */
  private leaving = 0;
  private nextRef = 1;
  private frameIds = new Map<Frame, number>();
  /** Each frame's last walk, reused while its page reports no change (see injected/changes.ts). */
  private readonly lastWalks = new WeakMap<Frame, WalkResult>();
  private nextFrameId = 1;
  private chooserAbort = new AbortController();
  private closed = false;
  private lastChooserNode: number | undefined;
  /** CSS media emulated in this tab (browser_emulate_media): Chromium takes the whole set on every change. */
  readonly media: { features: Record<string, string>; type: 'screen' | 'print' | null } = { features: {}, type: null };
  /** The named context this tab lives in: its refs read `name:e2`, and refs of other contexts are refused. */
  private readonly refContext: string | undefined;

  constructor(page: Page, options: { refContext?: string | undefined } = {}) {
    this.page = page;
    this.refContext = options.refContext;
    // Puppeteer's FileChooser keeps its input to itself; the same CDP event tells which input it is.
    cdp(page).on('Page.fileChooserOpened', (event) => {
      this.lastChooserNode = event.backendNodeId;
    });
    this.logs = new TabLogs(page);
    this.guard = new RequestGuard(page);
    page.on('dialog', (dialog) => {
      // Leaving the page: "Leave site?" is answered Leave, as a person who closes the tab does.
      if (dialog.type() === 'beforeunload' && this.leaving > 0) {
        void dialog.accept().catch(() => undefined);
        return;
      }
      if (this.dismissing) {
        this.dismissing.arrived++;
        void dialog.dismiss().catch(() => undefined);
        return;
      }
      const text = dialog.message();
      this.addModal({
        kind: 'dialog',
        dialog,
        description: `["${dialog.type()}" dialog with message "${text}"]: can be handled by the "browser_handle_dialog" tool`,
      });
    });
    page.on('close', () => {
      this.closed = true;
      this.chooserAbort.abort();
    });
    // A chooser belongs to its document: a new one (not a route change within it) leaves it behind, and the next
    // chooser must find the waiter armed again.
    cdp(page).on('Page.frameNavigated', (event) => {
      if (event.frame.parentId === undefined) this.dropFileChoosers();
    });
    this.armFileChooser();
  }

  private dropFileChoosers(): void {
    const stale = this.modals.filter((m) => m.kind === 'fileChooser');
    if (!stale.length) return;
    this.modals = this.modals.filter((m) => m.kind !== 'fileChooser');
    for (const state of stale) void state.chooser.cancel().catch(() => undefined);
    this.armFileChooser();
  }

  get isClosed(): boolean {
    return this.closed || this.page.isClosed();
  }

  /** A standing waiter makes every file chooser ours, so no native dialog ever blocks the page. */
  armFileChooser(): void {
    if (this.isClosed) return;
    this.page
      .waitForFileChooser({ timeout: 0, signal: this.chooserAbort.signal })
      .then((chooser) => {
        this.addModal({
          kind: 'fileChooser',
          chooser,
          backendNodeId: this.lastChooserNode,
          description: `[File chooser${chooser.isMultiple() ? ' (multiple files)' : ''}]: can be handled by the "browser_file_upload" tool`,
        });
      })
      .catch(() => {
        /* aborted on close */
      });
  }

  /** The page's own CDP session, for the few calls puppeteer has no API for. */
  cdp(): CDPSession {
    return cdp(this.page);
  }

  /**
   * Gives the chooser its files: paths through Chromium (it reads them), contents as File objects set on the input
   * in the page, with the input and change events a person's choice fires.
   */
  async acceptChooser(state: Extract<ModalState, { kind: 'fileChooser' }>, files: readonly UploadFile[]): Promise<void> {
    const paths = files.flatMap((f) => ('path' in f ? [f.path] : []));
    if (paths.length === files.length) return state.chooser.accept(paths);
    if (paths.length) throw new ToolError('This host mixes file paths and contents in one upload; upload them in two calls.');
    if (state.backendNodeId === undefined) throw new ToolError('The file input that opened this chooser cannot be found; click it again.');
    const client = cdp(this.page);
    const { object } = await client.send('DOM.resolveNode', { backendNodeId: state.backendNodeId });
    if (!object.objectId) throw new ToolError('The file input that opened this chooser is gone from the page; click it again.');
    try {
      await client.send('Runtime.callFunctionOn', {
        objectId: object.objectId,
        // Sent on its own (self-contained): CDP names the chooser's input only by node id, which no handle reaches.
        functionDeclaration: `function (files) { return (${setInputFiles.toString()})(this, files); }`,
        arguments: [{ value: files }],
        returnByValue: true,
      });
    } finally {
      await client.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => undefined);
    }
  }

  /**
   * Dismisses every dialog, open or opening while `work` runs (a page that raises alert after alert must not hold a
   * rescue hostage); returns `work`'s value, how many dialogs were open and how many more opened meanwhile.
   */
  async dismissingDialogs<T>(work: () => Promise<T>): Promise<{ value: T; open: number; arrived: number }> {
    const counter = { arrived: 0 };
    this.dismissing = counter;
    let open = 0;
    try {
      for (let state = this.takeModal('dialog'); state; state = this.takeModal('dialog')) {
        open++;
        await state.dialog.dismiss().catch(() => undefined);
      }
      return { value: await work(), open, arrived: counter.arrived };
    } finally {
      this.dismissing = undefined;
    }
  }

  /** Runs a navigation away from the page: a beforeunload "Leave site?" it raises is accepted. */
  async leavingPage<T>(work: () => Promise<T>): Promise<T> {
    this.leaving++;
    try {
      return await work();
    } finally {
      this.leaving--;
    }
  }

  private addModal(state: ModalState): void {
    this.modals.push(state);
    for (const listener of this.modalListeners) listener();
  }

  modalStates(): readonly ModalState[] {
    return this.modals;
  }

  takeModal<K extends ModalState['kind']>(kind: K): Extract<ModalState, { kind: K }> | undefined {
    const i = this.modals.findIndex((m) => m.kind === kind);
    if (i < 0) return undefined;
    const [state] = this.modals.splice(i, 1);
    return state as Extract<ModalState, { kind: K }>;
  }

  /** Puts back a modal a tool took but could not handle (e.g. upload paths refused), so the model can retry. */
  restoreModal(state: ModalState): void {
    this.modals.unshift(state);
  }

  async title(): Promise<string> {
    try {
      return await this.page.title();
    } catch {
      return '';
    }
  }

  /**
   * Takes a picture of the page with `shoot`. Chrome paints only the tab in front of its window, and a capture of a
   * tab it does not paint waits for a frame that never comes (and holds up other captures meanwhile). So a hidden
   * tab is brought to the front first, unless the session must stay in the background (the person's own browser):
   * then the picture is refused at once, saying why.
   */
  async capture<T>(shoot: () => Promise<T>, options: { background?: boolean | undefined } = {}): Promise<T> {
    const hidden = await inPage(this.page.mainFrame(), 'isHidden').catch(() => false);
    if (hidden && options.background) {
      throw new ToolError(
        'This tab is behind another tab in its window, and Chrome paints only the tab in front, so it cannot be ' +
          'photographed without taking the person\'s focus. browser_snapshot reads the page in the background; a screenshot works once the person looks at the tab.',
      );
    }
    if (hidden) await this.page.bringToFront().catch(() => undefined);
    return shoot();
  }

  private frameId(frame: Frame): number {
    let id = this.frameIds.get(frame);
    if (!id) {
      id = this.nextFrameId++;
      this.frameIds.set(frame, id);
    }
    return id;
  }

  private async walk(
    frame: Frame,
    prefix: string,
    opts: { targetRef?: string; depth?: number; allUrls?: boolean; budget?: number; boxes?: boolean },
  ): Promise<WalkResult> {
    const boxOffset = opts.boxes && frame !== this.page.mainFrame() ? { boxOffset: await frameOffset(frame) } : {};
    const cached = this.lastWalks.get(frame);
    const reuse = cached && !opts.boxes ? { reuse: cached.token! } : {};
    const result = await inPage(frame, 'walkPage', { seed: this.nextRef, prefix, ...opts, ...boxOffset, ...reuse });
    this.nextRef = Math.max(this.nextRef, result.next);
    // The page has not changed since that result: its lines did not travel again (on a big page, most of the cost).
    if (result.same && cached) return cached;
    if (result.token) this.lastWalks.set(frame, result);
    else this.lastWalks.delete(frame);
    return result;
  }

  /** The ARIA snapshot of the page (or of one element) with refs, cut at `maxChars` on a line boundary. */
  async snapshot(opts: SnapshotOptions): Promise<string> {
    let frame = this.page.mainFrame();
    let targetRef: string | undefined;
    let prefix = refPrefix(this.refContext, undefined);
    if (opts.target) {
      const resolved = await this.resolveTarget(opts.target);
      frame = resolved.frame;
      targetRef = resolved.ref;
      prefix = resolved.prefix;
    }
    const allUrls = opts.allUrls === true;
    const boxes = opts.boxes ? { boxes: true } : {};
    const budget = Number.isFinite(opts.maxChars) ? { budget: opts.maxChars } : {};
    const walkOpts = { allUrls, ...budget, ...boxes, ...(targetRef ? { targetRef } : {}), ...(opts.depth !== undefined ? { depth: opts.depth } : {}) };
    const main = await this.walk(frame, prefix, walkOpts);
    if (main.missing) throw ToolError.staleRef(opts.target ?? '');
    const text =
      main.iframeRefs.length && opts.depth === undefined ? (await this.spliceFrames(frame, prefix, main, { allUrls, ...budget, ...boxes })).join('\n') : main.text;
    return cut(text, opts.maxChars, main.stopped === true);
  }

  // Child frames render with their own walker (cross-origin frames run in other processes) and are spliced
  // under their <iframe> line.
  private async spliceFrames(
    parent: Frame,
    parentPrefix: string,
    parentResult: WalkResult,
    walkOpts: { allUrls: boolean; budget?: number; boxes?: boolean },
  ): Promise<string[]> {
    let lines = parentResult.text.split('\n');
    for (const child of parent.childFrames()) {
      if (child.detached) continue;
      let ownerRef: string | undefined;
      try {
        const owner = await child.frameElement();
        if (!owner) continue;
        ownerRef = await inPage(parent, 'refOfElement', owner, this.nextRef);
        await owner.dispose();
      } catch {
        continue;
      }
      const marker = `[ref=${parentPrefix}${ownerRef}]`;
      // A box or url may follow the ref on its line.
      const at = lines.findIndex((l) => {
        const i = l.lastIndexOf(marker);
        return i >= 0 && /^($|:| \[)/.test(l.slice(i + marker.length));
      });
      if (at < 0) continue;
      const prefix = refPrefix(this.refContext, this.frameId(child));
      // A frame still parsing its document (frames load after the page; a busy machine parses in slices) would show
      // half its elements, or a button before its text: give it a moment to finish, bounded.
      await inPage(child, 'whenParsed', FRAME_PARSE_WAIT_MS).catch(() => undefined);
      let result: WalkResult;
      try {
        result = await this.walk(child, prefix, walkOpts);
      } catch {
        continue;
      }
      const childLines = result.iframeRefs.length ? await this.spliceFrames(child, prefix, result, walkOpts) : result.text.split('\n');
      const line = lines[at]!;
      const indent = /^ */.exec(line)![0] + '  ';
      const head = line.endsWith(':') ? line : `${line}:`;
      lines = [...lines.slice(0, at), head, ...childLines.map((l) => indent + l), ...lines.slice(at + 1)];
    }
    return lines;
  }

  /**
   * Turns a target (a snapshot ref like `e12` / `f1e3`, or a CSS selector) into the frame and ref it names.
   * A ref that no longer resolves is an error that says to take a new snapshot — never a different element.
   */
  async resolveTarget(target: string): Promise<{ frame: Frame; ref: string; prefix: string }> {
    const parsed = parseRef(target);
    if (parsed) {
      if (parsed.context !== this.refContext) {
        throw new ToolError(
          `ref ${target} belongs to ${parsed.context ? `context "${parsed.context}"` : 'the default context'}; switch to it with browser_context_switch first.`,
        );
      }
      const frame = parsed.frame !== undefined ? this.frameById(parsed.frame) : this.page.mainFrame();
      if (!frame) throw ToolError.staleRef(target);
      return { frame, ref: parsed.element, prefix: refPrefix(parsed.context, parsed.frame) };
    }
    const frame = this.page.mainFrame();
    let handle: ElementHandle<Element> | null;
    try {
      handle = await frame.$(target);
    } catch {
      throw new ToolError(
        `"${target}" is neither a ref from the snapshot (like e12) nor a valid CSS selector. Take a snapshot and use a ref.`,
      );
    }
    if (!handle) {
      throw new ToolError(`No element matches the selector "${target}". Take a snapshot and use a ref, or fix the selector.`);
    }
    const ref = await inPage(frame, 'refOfElement', handle, this.nextRef);
    await handle.dispose();
    const n = Number(ref.slice(1));
    this.nextRef = Math.max(this.nextRef, n + 1);
    return { frame, ref, prefix: refPrefix(this.refContext, undefined) };
  }

  private frameById(id: number): Frame | undefined {
    for (const [frame, fid] of this.frameIds) if (fid === id && !frame.detached) return frame;
    return undefined;
  }

  /** The live element for a target, or a stale-ref error. */
  async elementFor(target: string): Promise<{ handle: ElementHandle<Element>; frame: Frame }> {
    const { frame, ref } = await this.resolveTarget(target);
    const handle = await inPageHandle(frame, 'elementForRef', ref);
    const el = handle.asElement() as ElementHandle<Element> | null;
    if (!el) {
      await handle.dispose();
      throw ToolError.staleRef(target);
    }
    return { handle: el, frame };
  }

  /** Runs `fn` on a target's live element, then lets the handle go. */
  async withElement<T>(target: string, fn: (el: ElementHandle<Element>, frame: Frame) => Promise<T>): Promise<T> {
    const { handle, frame } = await this.elementFor(target);
    try {
      return await fn(handle, frame);
    } finally {
      // Not awaited: while a dialog the action opened is up, the renderer answers nothing, releasing included.
      void handle.dispose().catch(() => undefined);
    }
  }

  /**
   * Waits until the element can be acted on (visible, enabled, not covered), scrolled into view, and returns a
   * point in main-frame viewport coordinates.
   */
  async actionPoint(
    handle: ElementHandle<Element>,
    frame: Frame,
    label: string,
    needsEnabled = true,
    timeoutMs = 5000,
  ): Promise<{ x: number; y: number; opensChooser: boolean }> {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const point = await inPage(frame, 'prepareAction', handle, needsEnabled);
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

  /** Resolves when a dialog or file chooser opens; used to stop waiting on an action the modal blocks. */
  private modalOpened(): { promise: Promise<'modal'>; dispose: () => void } {
    let listener: () => void = () => {};
    const promise = new Promise<'modal'>((resolve) => {
      listener = () => resolve('modal');
      this.modalListeners.add(listener);
    });
    return { promise, dispose: () => this.modalListeners.delete(listener) };
  }

  /**
   * Runs page work that a dialog may block (an evaluate whose code calls alert): 'modal' as soon as one opens,
   * since the renderer answers nothing until it is handled. The work's late outcome is dropped.
   */
  async unlessModal<T>(work: () => Promise<T>): Promise<{ value: T } | 'modal'> {
    const modal = this.modalOpened();
    try {
      const running = work().then((value) => ({ value }));
      running.catch(() => undefined);
      return await Promise.race([running, modal.promise]);
    } finally {
      modal.dispose();
    }
  }

  /**
   * Runs an action and then waits for what it caused: a navigation it started (until DOMContentLoaded), the
   * requests it started, and the DOM settling — never a fixed sleep. A dialog or file chooser ends the wait.
   * `expectChooser`: the action clicked a file input, whose chooser Chromium reports a moment after the click
   * itself is done; wait for it (capped) so the answer carries the modal state.
   */
  async runAction<T>(action: () => Promise<T>, opts: { expectChooser?: boolean } = {}): Promise<void> {
    const page = this.page;
    const started: HTTPRequest[] = [];
    let navigation: HTTPRequest | undefined;
    const onRequest = (req: HTTPRequest) => {
      if (req.isNavigationRequest() && req.frame() === page.mainFrame()) navigation = req;
      else if (req.resourceType() === 'fetch' || req.resourceType() === 'xhr' || req.isNavigationRequest()) started.push(req);
    };
    page.on('request', onRequest);
    const modal = this.modalOpened();
    const urlBefore = page.url();
    try {
      const outcome = await Promise.race([action().then(() => 'done' as const), modal.promise]);
      if (outcome === 'modal') return;
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

  private async settle(urlBefore: string, navigation: () => HTTPRequest | undefined, started: HTTPRequest[]): Promise<void> {
    const page = this.page;
    try {
      // Background tabs throttle timers to about one a second: the cap is kept from here too.
      await withTimeout(inPage(page.mainFrame(), 'settleDom', urlBefore, SETTLE_QUIET_MS, SETTLE_CAP_MS), SETTLE_CAP_MS + 100);
    } catch {
      // The document went away: a navigation is under way.
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

async function frameOffset(frame: Frame): Promise<{ x: number; y: number }> {
  let x = 0;
  let y = 0;
  let current: Frame | null = frame;
  while (current && current.parentFrame()) {
    const owner = await current.frameElement();
    if (!owner) break;
    const box = await inPage(current.parentFrame()!, 'frameContentOffset', owner);
    await owner.dispose();
    x += box.x;
    y += box.y;
    current = current.parentFrame();
  }
  return { x, y };
}

// `stopped`: the walk itself ended at the budget, so how much is left is not known.
function cut(text: string, maxChars: number, stopped: boolean): string {
  // Every line counts with its newline: a text that fits goes as it came, without being split.
  if (text.length + 1 <= maxChars && !stopped) return text;
  const lines = text.split('\n');
  let size = 0;
  let at = lines.length;
  for (let i = 0; i < lines.length; i++) {
    size += lines[i]!.length + 1;
    if (size > maxChars) {
      at = i;
      break;
    }
  }
  if (at === lines.length && !stopped) return lines.join('\n');
  const rest = stopped ? 'the rest of the page is' : `${lines.length - at} more lines`;
  return [
    ...lines.slice(0, at),
    `- note: "Snapshot cut at ${maxChars} characters; ${rest} not shown. Use browser_snapshot with target=<ref> or depth=<n> to see part of the page, or browser_find to search it."`,
  ].join('\n');
}

/** How long a snapshot waits for a child frame that is still parsing its document. */
const FRAME_PARSE_WAIT_MS = 1000;

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
