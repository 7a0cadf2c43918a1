import type { Frame, Page } from 'puppeteer-core';
import { ToolError } from '../engine/errors.js';
import { frameOffset, type FrameRefs } from '../engine/frames.js';
import { inPage } from '../engine/in-page.js';
import { markPressListeners } from '../engine/listeners.js';
import type { WalkResult } from '../injected/walk.js';

export interface SnapshotOptions {
  target?: string;
  depth?: number;
  maxChars: number;
  /** Every link's url, not only those the name does not already tell (see walkPage). */
  allUrls?: boolean;
  /** Each element's bounding box, `[box=x,y,width,height]`. */
  boxes?: boolean;
}

type WalkOptions = { targetRef?: string; depth?: number; allUrls?: boolean; budget?: number; boxes?: boolean };

/** How long a snapshot waits for a child frame that is still parsing its document. */
const FRAME_PARSE_WAIT_MS = 1000;

/**
 * A tab's ARIA snapshots: each frame walked by the installed script, child frames spliced under their `<iframe>`
 * line, the result cut at the budget; a frame that reports no change since its last walk gives that walk again.
 */
export class TabSnapshots {
  /** Each frame's last walk, reused while its page reports no change (see injected/changes.ts). */
  private readonly lastWalks = new WeakMap<Frame, WalkResult>();
  /** Frames whose documents see listeners only through the engine's marks (see engine/listeners.ts). */
  private readonly marking = new WeakSet<Frame>();

  constructor(
    private readonly page: Page,
    private readonly refs: FrameRefs,
  ) {}

  /** The document the main frame's last walk read (its id), while that walk can tell; undefined otherwise. */
  mainDocument(): string | undefined {
    return this.lastWalks.get(this.page.mainFrame())?.token?.split(':')[0];
  }

  /** The ARIA snapshot of the page (or of one element) with refs, cut at `maxChars` on a line boundary. */
  async take(opts: SnapshotOptions): Promise<string> {
    let frame = this.page.mainFrame();
    let targetRef: string | undefined;
    let prefix = this.refs.prefixOf(frame);
    if (opts.target) {
      const resolved = await this.refs.resolve(opts.target);
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
      main.iframeRefs.length && opts.depth === undefined
        ? (await this.spliceFrames(frame, prefix, main, { allUrls, ...budget, ...boxes })).join('\n')
        : main.text;
    return cut(text, opts.maxChars, main.stopped === true);
  }

  private async walk(frame: Frame, prefix: string, opts: WalkOptions): Promise<WalkResult> {
    const boxOffset = opts.boxes && frame !== this.page.mainFrame() ? { boxOffset: await frameOffset(frame) } : {};
    const cached = this.lastWalks.get(frame);
    const reuse = cached && !opts.boxes ? { reuse: cached.token! } : {};
    // Where the page sees listeners only through marks (the person's browser), they are brought up to date first;
    // a document first learnt to be so is walked again once marked.
    if (this.marking.has(frame)) await markPressListeners(frame);
    let result = await inPage(frame, 'walkPage', { seed: this.refs.nextRef, prefix, ...opts, ...boxOffset, ...reuse });
    if (result.listenersMarked && !this.marking.has(frame)) {
      this.marking.add(frame);
      await markPressListeners(frame);
      result = await inPage(frame, 'walkPage', { seed: this.refs.nextRef, prefix, ...opts, ...boxOffset });
    }
    if (result.more) {
      // A big snapshot's other parts, all in flight at once (see injected/parcel.ts).
      const { id, parts } = result.more;
      result.text = (await Promise.all(Array.from({ length: parts }, (_, i) => inPage(frame, 'parcelPart', id, i)))).join('');
      delete result.more;
    }
    this.refs.nextRef = Math.max(this.refs.nextRef, result.next);
    // The page has not changed since that result: its lines did not travel again (on a big page, most of the cost).
    if (result.same && cached) return cached;
    if (result.token) this.lastWalks.set(frame, result);
    else this.lastWalks.delete(frame);
    return result;
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
        ownerRef = await inPage(parent, 'refOfElement', owner, this.refs.nextRef);
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
      const prefix = this.refs.prefixOf(child);
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
      const indent = `${/^ */.exec(line)![0]}  `;
      const head = line.endsWith(':') ? line : `${line}:`;
      lines = [...lines.slice(0, at), head, ...childLines.map((l) => indent + l), ...lines.slice(at + 1)];
    }
    return lines;
  }
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
