import { decode } from 'fast-png';

/** A decoded screenshot: its size and the colour at a point given as a fraction of each side. */
export interface Picture {
  width: number;
  height: number;
  /** The [r, g, b] at (fx × width, fy × height). */
  at(fx: number, fy: number): [number, number, number];
}

/** Decodes a PNG (a screenshot's bytes) so a test can judge what it shows by its pixels, not by its size. */
export function picture(png: Uint8Array): Picture {
  const { width, height, data, channels } = decode(png);
  return {
    width,
    height,
    at(fx, fy) {
      const i = (Math.min(height - 1, Math.floor(fy * height)) * width + Math.min(width - 1, Math.floor(fx * width))) * channels;
      return [Number(data[i]), Number(data[i + 1]), Number(data[i + 2])];
    },
  };
}

/** Whether two colours are the same to within `tolerance` in each channel (compression, colour profiles). */
export function sameColour(a: readonly number[], b: readonly number[], tolerance = 24): boolean {
  return a.every((v, i) => Math.abs(v - b[i]!) <= tolerance);
}
