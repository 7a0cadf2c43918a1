import { describe, expect, it } from 'vitest';
import { KeyMemory } from '../../src/local/key-memory';

const MB = 1024 * 1024;

describe("KeyMemory: what each key's tabs hold together", () => {
  it("stops the key's biggest tab once its tabs together pass the limit, and no other key's", () => {
    const ledger = new KeyMemory<string>(100 * MB);
    const stopped: Array<[string, number, number]> = [];
    for (const [key, tab] of [
      ['a', 'a1'],
      ['a', 'a2'],
      ['b', 'b1'],
    ] as const)
      ledger.track(key, tab, (bytes, total) => stopped.push([tab, bytes, total]));
    ledger.reading('a', 'a1', 30 * MB);
    ledger.reading('b', 'b1', 90 * MB);
    ledger.reading('a', 'a2', 60 * MB);
    expect(stopped).toEqual([]);
    // a1 grows: a's tabs hold 110 MB together, and its biggest, a2, is stopped.
    ledger.reading('a', 'a1', 50 * MB);
    expect(stopped).toEqual([['a2', 60 * MB, 110 * MB]]);
    expect(ledger.total('a')).toBe(50 * MB);
    // A stopped tab is no longer counted; its later readings change nothing.
    ledger.reading('a', 'a2', 500 * MB);
    expect(stopped).toHaveLength(1);
    expect(ledger.total('b')).toBe(90 * MB);
  });

  it('forgets closed tabs, and counts the tabs of a key without one (a gateway without keys) together', () => {
    const ledger = new KeyMemory<string>(10 * MB);
    const stopped: string[] = [];
    ledger.track(undefined, 't1', () => stopped.push('t1'));
    ledger.track(undefined, 't2', () => stopped.push('t2'));
    ledger.reading(undefined, 't1', 6 * MB);
    ledger.forget(undefined, 't1');
    ledger.reading(undefined, 't2', 6 * MB);
    expect(stopped).toEqual([]);
    ledger.track(undefined, 't3', () => stopped.push('t3'));
    ledger.reading(undefined, 't3', 5 * MB);
    expect(stopped).toEqual(['t2']);
  });
});
