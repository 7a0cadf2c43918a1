import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PART_CHARS, parcel, parcelPart, parkedCount } from '../src/injected/parcel.js';

// How a big string leaves the page: a short one whole, a long one in parts taken once each, in any order.

const takeAll = (id: string, order: number[]) => {
  const got: string[] = [];
  for (const i of order) got[i] = parcelPart(id, i);
  return got.join('');
};

describe('parcel', () => {
  it('sends a text up to one part whole, with nothing parked', () => {
    const before = parkedCount();
    expect(parcel('')).toEqual({ text: '' });
    const text = 'x'.repeat(PART_CHARS);
    expect(parcel(text)).toEqual({ text });
    expect(parkedCount()).toBe(before);
  });

  it('gives back any long text exactly, its parts taken in any order, and then forgets it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: PART_CHARS + 1, max: PART_CHARS * 4 }),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (size, unit, reverse) => {
          const text = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
          const parcelled = parcel(text);
          const { more } = parcelled;
          expect(parcelled.text).toBe('');
          expect(more!.parts).toBe(Math.ceil(size / PART_CHARS));
          const order = [...Array(more!.parts).keys()];
          if (reverse) order.reverse();
          expect(takeAll(more!.id, order)).toBe(text);
          expect(() => parcelPart(more!.id, 0)).toThrow(/is not parked in this document/);
        },
      ),
      { numRuns: 20 },
    );
    expect(parkedCount()).toBe(0);
  });

  it('refuses a part taken twice, out of range or of an unknown parcel', () => {
    const { more } = parcel('y'.repeat(PART_CHARS * 2 + 5));
    parcelPart(more!.id, 1);
    expect(() => parcelPart(more!.id, 1)).toThrow(`part 1 of ${more!.id} is not parked in this document`);
    expect(() => parcelPart(more!.id, 3)).toThrow(/part 3 of/);
    expect(() => parcelPart('nope', 0)).toThrow(/part 0 of nope/);
    parcelPart(more!.id, 0);
    parcelPart(more!.id, 2);
    expect(parkedCount()).toBe(0);
  });

  it('keeps at most four parcels a host left behind, dropping the oldest', () => {
    const ids = Array.from({ length: 6 }, () => parcel('z'.repeat(PART_CHARS + 1)).more!.id);
    expect(parkedCount()).toBe(4);
    expect(() => parcelPart(ids[0]!, 0)).toThrow(/not parked/);
    expect(parcelPart(ids[5]!, 1)).toBe('z');
    for (const id of ids.slice(2)) for (const i of [0, 1]) if (!(id === ids[5] && i === 1)) parcelPart(id, i);
    expect(parkedCount()).toBe(0);
  });
});
