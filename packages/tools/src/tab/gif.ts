import { decode } from 'fast-png';
import { applyPalette, GIFEncoder, quantize } from 'gifenc';
import type { CaptureOptions, Tab } from './tab.js';

const MAX_FRAMES = 200;
const MAX_WIDTH = 800;
const MIN_DELAY_MS = 100;
const MAX_DELAY_MS = 2000;

interface Frame {
  png: Uint8Array;
  at: number;
}

/**
 * Records what the page showed during a series of actions: a frame when recording starts and one after every tool
 * call, encoded as an animated GIF on stop. Pure JS (fast-png, gifenc), so it runs in the extension too.
 */
export class GifRecorder {
  private readonly frames: Frame[] = [];
  dropped = 0;

  get frameCount(): number {
    return this.frames.length;
  }

  async capture(tab: Tab, options: CaptureOptions = {}): Promise<void> {
    if (this.frames.length >= MAX_FRAMES) {
      this.dropped++;
      return;
    }
    const view = await tab.viewportClip();
    const png = await tab.capture(
      { format: 'png', clip: { ...view, scale: Math.min(1, MAX_WIDTH / Math.max(1, view.width)) }, captureBeyondViewport: false },
      options,
    );
    this.frames.push({ png, at: Date.now() });
  }

  /** The recording as GIF bytes; each frame shows as long as the page showed it (within 0.1-2 s). */
  encode(): Uint8Array {
    const gif = GIFEncoder();
    this.frames.forEach((frame, i) => {
      const image = decode(frame.png);
      const rgba = toRgba(image.data, image.channels, image.width * image.height);
      const palette = quantize(rgba, 256);
      const next = this.frames[i + 1];
      const delay = next ? Math.min(MAX_DELAY_MS, Math.max(MIN_DELAY_MS, next.at - frame.at)) : 1000;
      gif.writeFrame(applyPalette(rgba, palette), image.width, image.height, { palette, delay });
    });
    gif.finish();
    return gif.bytes();
  }
}

// Chromium screenshots are 8-bit RGB or RGBA; gifenc wants RGBA.
function toRgba(data: ArrayLike<number>, channels: number, pixels: number): Uint8Array {
  if (channels === 4 && data instanceof Uint8Array) return data;
  const out = new Uint8Array(pixels * 4);
  for (let p = 0; p < pixels; p++) {
    out[p * 4] = data[p * channels]!;
    out[p * 4 + 1] = data[p * channels + (channels >= 3 ? 1 : 0)]!;
    out[p * 4 + 2] = data[p * channels + (channels >= 3 ? 2 : 0)]!;
    out[p * 4 + 3] = channels === 4 || channels === 2 ? data[p * channels + channels - 1]! : 255;
  }
  return out;
}
