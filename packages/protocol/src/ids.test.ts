import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESERVED_ID_PREFIXES, detectIdMode, isReservedId, isValidConnectionId, mapId, proxyControlId, unmapId } from './ids';

// Valid connection ids: non-empty, no ":", not "proxy" or "ext".
const connectionIdArb = fc.string({ minLength: 1 }).filter(isValidConnectionId);
// Strings rich in ":" and "s:" so the parser's edge cases come up often.
const colonyStringArb = fc.oneof(
  fc.string(),
  fc.array(fc.constantFrom(':', 's', 's:', '5', 'proxy', 'ext', '-', '.', 'e', ''), { maxLength: 8 }).map((p) => p.join('')),
);
const numberIdArb = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
);

describe('mapId', () => {
  it('writes numbers in the documented "<connectionId>:<id>" form', () => {
    expect(mapId('c1', 5)).toBe('c1:5');
    expect(mapId('c1', -3)).toBe('c1:-3');
    expect(mapId('c1', 1.5)).toBe('c1:1.5');
  });

  it('marks strings, so 5 and "5" map to different values', () => {
    expect(mapId('c1', '5')).toBe('c1:s:5');
    expect(mapId('c1', 'a:b')).toBe('c1:s:a:b');
    expect(mapId('c1', '')).toBe('c1:s:');
    expect(mapId('c1', 5)).not.toBe(mapId('c1', '5'));
  });

  it('throws a TypeError for a connectionId with ":"', () => {
    expect(() => mapId('a:b', 1)).toThrow(TypeError);
    expect(() => mapId('a:b', 1)).toThrow(/must not contain ":"/);
  });

  it('throws a TypeError for an empty or reserved connectionId', () => {
    expect(() => mapId('', 1)).toThrow(/must not be empty/);
    expect(() => mapId('proxy', 1)).toThrow(/reserved/);
    expect(() => mapId('ext', 1)).toThrow(/reserved/);
  });

  it('throws a TypeError for ids JSON cannot carry', () => {
    expect(() => mapId('c', Number.NaN)).toThrow(TypeError);
    expect(() => mapId('c', Number.POSITIVE_INFINITY)).toThrow(TypeError);
  });

  it('maps -0 like 0, as JSON does', () => {
    expect(mapId('c', -0)).toBe('c:0');
  });
});

describe('unmapId', () => {
  it('restores the id with its type', () => {
    expect(unmapId('c1:5')).toStrictEqual({ connectionId: 'c1', id: 5 });
    expect(unmapId('c1:s:5')).toStrictEqual({ connectionId: 'c1', id: '5' });
    expect(unmapId('c1:s:a:b:c')).toStrictEqual({ connectionId: 'c1', id: 'a:b:c' });
    expect(unmapId('c1:1e+21')).toStrictEqual({ connectionId: 'c1', id: 1e21 });
  });

  it.each([
    ['a number', 5],
    ['null', null],
    ['no colon', 'abc'],
    ['an empty connectionId', ':5'],
    ['nothing after the colon', 'c:'],
    ['a non-numeric unmarked id', 'c:abc'],
    ['a leading zero', 'c:05'],
    ['a trailing ".0"', 'c:1.0'],
    ['whitespace', 'c: 5'],
    ['hex', 'c:0x10'],
    ['Infinity', 'c:Infinity'],
    ['a reserved proxy id', 'proxy:5'],
    ['a reserved extension id', 'ext:s:x'],
  ])('returns null for %s', (_label, input) => {
    expect(unmapId(input)).toBeNull();
  });

  it('round-trips every string and number id, colons included (property)', () => {
    fc.assert(
      fc.property(connectionIdArb, fc.oneof(colonyStringArb, numberIdArb), (connectionId, id) => {
        const restored = unmapId(mapId(connectionId, id));
        expect(restored).toStrictEqual({ connectionId, id });
        expect(typeof restored?.id).toBe(typeof id);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps a number and its string apart (property)', () => {
    fc.assert(
      fc.property(connectionIdArb, numberIdArb, (connectionId, n) => {
        const asNumber = mapId(connectionId, n);
        const asString = mapId(connectionId, String(n));
        expect(asNumber).not.toBe(asString);
        expect(unmapId(asNumber)?.id).toBe(n);
        expect(unmapId(asString)?.id).toBe(String(n));
      }),
    );
  });

  it('accepts only canonical spellings: whatever unmaps maps back to itself (property)', () => {
    fc.assert(
      fc.property(colonyStringArb, (text) => {
        const restored = unmapId(text);
        if (restored !== null) expect(mapId(restored.connectionId, restored.id)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses any connectionId containing ":" (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.oneof(fc.string(), fc.integer()), (before, after, id) => {
        expect(() => mapId(`${before}:${after}`, id)).toThrow(TypeError);
      }),
    );
  });
});

describe('isValidConnectionId', () => {
  it('accepts ordinary ids and refuses empty, coloned, reserved and non-string ones', () => {
    expect(isValidConnectionId('conn-1')).toBe(true);
    expect(isValidConnectionId('proxy1')).toBe(true);
    expect(isValidConnectionId('')).toBe(false);
    expect(isValidConnectionId('a:b')).toBe(false);
    expect(isValidConnectionId('proxy')).toBe(false);
    expect(isValidConnectionId('ext')).toBe(false);
    expect(isValidConnectionId(5)).toBe(false);
  });
});

describe('isReservedId', () => {
  it('is true for string ids starting with "proxy:" or "ext:"', () => {
    expect(RESERVED_ID_PREFIXES).toStrictEqual(['proxy:', 'ext:']);
    expect(isReservedId('proxy:1')).toBe(true);
    expect(isReservedId('proxy:')).toBe(true);
    expect(isReservedId('ext:abc')).toBe(true);
  });

  it('is false for numbers, other strings and near misses', () => {
    expect(isReservedId(1)).toBe(false);
    expect(isReservedId('proxy')).toBe(false);
    expect(isReservedId('Proxy:1')).toBe(false);
    expect(isReservedId('xproxy:1')).toBe(false);
    expect(isReservedId('c:s:proxy:1')).toBe(false);
    expect(isReservedId(null)).toBe(false);
  });

  it('holds for any suffix (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...RESERVED_ID_PREFIXES), fc.string(), (prefix, rest) => {
        expect(isReservedId(prefix + rest)).toBe(true);
      }),
    );
  });
});

describe('proxyControlId', () => {
  it('builds a reserved "proxy:N" id', () => {
    expect(proxyControlId(1)).toBe('proxy:1');
    expect(isReservedId(proxyControlId(7))).toBe(true);
    expect(detectIdMode(proxyControlId(7))).toBe('proxy-control');
  });
});

describe('detectIdMode', () => {
  it('tells the four kinds apart', () => {
    expect(detectIdMode(5)).toBe('direct');
    expect(detectIdMode(mapId('c1', 5))).toBe('proxied');
    expect(detectIdMode(mapId('c1', 'x:y'))).toBe('proxied');
    expect(detectIdMode('proxy:1')).toBe('proxy-control');
    expect(detectIdMode('ext:7')).toBe('proxy-control');
    expect(detectIdMode('abc')).toBe('plain');
    expect(detectIdMode('5')).toBe('plain');
    expect(detectIdMode('a:b')).toBe('plain');
  });

  it('reads every mapped id as proxied (property)', () => {
    fc.assert(
      fc.property(connectionIdArb, fc.oneof(colonyStringArb, numberIdArb), (connectionId, id) => {
        expect(detectIdMode(mapId(connectionId, id))).toBe('proxied');
      }),
    );
  });
});
