import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapse, isBlank } from '../src/injected/util.js';

// The walk's whitespace folding, written as one pass for speed: it must read text exactly as the regular expression
// it replaced (the golden snapshots depend on it).

const spaces = [
  ' ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
  '\u200b',
  '\u0085',
];

describe('collapse', () => {
  it('equals s.replace(/\\s+/g, " ").trim() on any mix of text and whitespace', () => {
    const piece = fc.oneof(fc.constantFrom(...spaces), fc.string({ minLength: 0, maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
        const s = parts.join('');
        expect(collapse(s)).toBe(s.replace(/\s+/g, ' ').trim());
      }),
      { numRuns: 3000 },
    );
  });

  it('returns clean text itself, and folds the usual cases', () => {
    const clean = 'Hello there, world';
    expect(collapse(clean)).toBe(clean);
    expect(collapse('  a \n\t b  ')).toBe('a b');
    expect(collapse(' ')).toBe('');
    expect(collapse('')).toBe('');
    expect(collapse('a\u00a0b')).toBe('a b');
  });

  it('isBlank: whitespace only, exactly when collapse leaves nothing', () => {
    const piece = fc.oneof(fc.constantFrom(...spaces), fc.string({ minLength: 0, maxLength: 2 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (parts) => {
        const s = parts.join('');
        expect(isBlank(s)).toBe(collapse(s) === '');
      }),
      { numRuns: 3000 },
    );
  });
});
