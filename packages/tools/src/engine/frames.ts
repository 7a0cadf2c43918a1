import type { ElementHandle, Frame, Page } from 'puppeteer-core';
import { ToolError } from './errors.js';
import { inPage, inPageHandle } from './in-page.js';
import { parseRef, refPrefix } from './refs.js';

/**
 * A tab's ref space: the numbering of element refs (continued across documents, so a ref never names another
 * element after a navigation), the ids of its child frames (`f1e3`), the named context its refs carry (`uk:e2`),
 * and the one way from a target (a ref or a CSS selector) to the live element it names.
 */
export class FrameRefs {
  /** The next element number the page's walker may hand out. */
  nextRef = 1;
  private frameIds = new Map<Frame, number>();
  private nextFrameId = 1;

  constructor(
    private readonly page: Page,
    /** The named context this tab lives in: its refs read `name:e2`, and refs of other contexts are refused. */
    readonly context: string | undefined,
  ) {}

  /** The ref prefix of a frame: the context, then `f<id>` for a child frame. */
  prefixOf(frame: Frame): string {
    return refPrefix(this.context, frame === this.page.mainFrame() ? undefined : this.frameId(frame));
  }

  private frameId(frame: Frame): number {
    let id = this.frameIds.get(frame);
    if (!id) {
      id = this.nextFrameId++;
      this.frameIds.set(frame, id);
    }
    return id;
  }

  private frameById(id: number): Frame | undefined {
    for (const [frame, fid] of this.frameIds) if (fid === id && !frame.detached) return frame;
    return undefined;
  }

  /**
   * Turns a target (a snapshot ref like `e12` / `f1e3`, or a CSS selector) into the frame and ref it names.
   * A ref that no longer resolves is an error that says to take a new snapshot — never a different element.
   */
  async resolve(target: string): Promise<{ frame: Frame; ref: string; prefix: string }> {
    const parsed = parseRef(target);
    if (parsed) {
      if (parsed.context !== this.context) {
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
      throw new ToolError(`"${target}" is neither a ref from the snapshot (like e12) nor a valid CSS selector. Take a snapshot and use a ref.`);
    }
    if (!handle) {
      throw new ToolError(`No element matches the selector "${target}". Take a snapshot and use a ref, or fix the selector.`);
    }
    const ref = await inPage(frame, 'refOfElement', handle, this.nextRef);
    await handle.dispose();
    const n = Number(ref.slice(1));
    this.nextRef = Math.max(this.nextRef, n + 1);
    return { frame, ref, prefix: refPrefix(this.context, undefined) };
  }

  /** The live element for a target, or a stale-ref error. */
  async elementFor(target: string): Promise<{ handle: ElementHandle<Element>; frame: Frame }> {
    const { frame, ref } = await this.resolve(target);
    const handle = await inPageHandle(frame, 'elementForRef', ref);
    const el = handle.asElement() as ElementHandle<Element> | null;
    if (!el) {
      await handle.dispose();
      throw ToolError.staleRef(target);
    }
    return { handle: el, frame };
  }
}

/** Where a frame's content sits in the main frame's viewport: boxes and action points are given there. */
export async function frameOffset(frame: Frame): Promise<{ x: number; y: number }> {
  let x = 0;
  let y = 0;
  let current: Frame | null = frame;
  while (current?.parentFrame()) {
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
