import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { encode } from 'fast-png';

const run = promisify(execFile);

/**
 * What the person sees on an X display, Chrome's own bars and buttons included (a page's screenshot has only the
 * page): read with `xwd` (Debian's x11-apps), clicked with `xdotool`, as the person's mouse would.
 */
export interface Screen {
  width: number;
  height: number;
  /** The [r, g, b] of the pixel at (x, y). */
  rgb(x: number, y: number): [number, number, number];
}

/** A box on the screen, in pixels. */
export interface ScreenBox {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export async function captureScreen(display: string): Promise<Screen> {
  const { stdout } = await run('xwd', ['-root', '-silent', '-display', display], { encoding: 'buffer', maxBuffer: 64 << 20 }).catch((error: Error) => {
    throw new Error(`cannot read the screen with xwd (${error.message}): install it (apt-get install -y x11-apps)`);
  });
  return parseXwd(stdout);
}

/** An XWD dump (X11's XWDFileHeader, big-endian, then the colour map, then 32-bit pixels) as a Screen. */
export function parseXwd(dump: Buffer): Screen {
  const field = (i: number) => dump.readUInt32BE(i * 4);
  const [headerSize, width, height, byteOrder, bitsPerPixel, bytesPerLine, ncolors] = [field(0), field(4), field(5), field(7), field(11), field(12), field(19)];
  if (bitsPerPixel !== 32) throw new Error(`xwd gave ${bitsPerPixel} bits a pixel; only 32 (a 24-bit Xvfb screen) is read`);
  const masks = [field(14), field(15), field(16)];
  const shifts = masks.map((m) => 31 - Math.clz32(m & -m));
  const start = headerSize + ncolors * 12;
  return {
    width,
    height,
    rgb(x, y) {
      const i = start + y * bytesPerLine + x * 4;
      const value = byteOrder === 0 ? dump.readUInt32LE(i) : dump.readUInt32BE(i);
      return masks.map((m, c) => ((value & m) >>> shifts[c]!) & 0xff) as [number, number, number];
    },
  };
}

/**
 * The tallest block of `colour` (within `tolerance` a channel) inside `within`: contiguous rows each holding a run
 * of that colour at least `minWidth` pixels long (a button's face, not a stray pixel of text or a thin underline);
 * blocks up to `rowGap` rows apart count as one.
 */
/** Most pixels between two runs of a block's colour that still make one run (a label's letters). */
const MAX_GAP = 16;

export function findBlock(screen: Screen, colour: readonly number[], within: ScreenBox, minWidth: number, tolerance = 8, rowGap = 0): ScreenBox | undefined {
  const matches = (x: number, y: number) => screen.rgb(x, y).every((v, c) => Math.abs(v - colour[c]!) <= tolerance);
  // The longest run of the colour in row y, runs a few pixels apart taken as one (a button label's letters split it).
  const longestRun = (y: number) => {
    let run: { left: number; right: number } | undefined;
    let span: { left: number; right: number } | undefined;
    const close = () => {
      if (span && span.right - span.left + 1 >= minWidth && (!run || span.right - span.left > run.right - run.left)) run = span;
      span = undefined;
    };
    for (let x = within.left; x < Math.min(within.right, screen.width); x++) {
      if (!matches(x, y)) continue;
      if (span && x - span.right > MAX_GAP) close();
      span = span ? { left: span.left, right: x } : { left: x, right: x };
    }
    close();
    return run;
  };
  let best: ScreenBox | undefined;
  const keep = (block: ScreenBox) => {
    if (!best || block.bottom - block.top > best.bottom - best.top) best = block;
  };
  let current: ScreenBox | undefined;
  // Rows without the colour since the current block's last: up to `rowGap` of them join two blocks (stacked cards).
  let missing = 0;
  for (let y = within.top; y <= Math.min(within.bottom, screen.height - 1); y++) {
    const run = longestRun(y);
    if (run) {
      current = current
        ? { left: Math.min(current.left, run.left), top: current.top, right: Math.max(current.right, run.right), bottom: y }
        : { ...run, top: y, bottom: y };
      missing = 0;
    } else if (current && ++missing > rowGap) {
      keep(current);
      current = undefined;
      missing = 0;
    }
  }
  if (current) keep(current);
  return best;
}

/** A real click of the X pointer at (x, y) (xdotool's XTest input: Chrome cannot tell it from the person's mouse). */
export async function clickScreen(display: string, x: number, y: number): Promise<void> {
  await run('xdotool', ['mousemove', '--sync', String(Math.round(x)), String(Math.round(y)), 'click', '1'], {
    env: { ...process.env, DISPLAY: display },
  }).catch((error: Error) => {
    throw new Error(`cannot click with xdotool (${error.message}): install it (apt-get install -y xdotool)`);
  });
}

/** The box of the screen as a PNG (a README picture of Chrome's own UI: a notification, a bar). */
export function screenPng(screen: Screen, box: ScreenBox): Uint8Array {
  const width = box.right - box.left + 1;
  const height = box.bottom - box.top + 1;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(screen.rgb(box.left + x, box.top + y), (y * width + x) * 3);
  return encode({ width, height, data, channels: 3, depth: 8 });
}
