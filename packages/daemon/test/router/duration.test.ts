import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/router/duration';

describe('formatDuration', () => {
  it('reads durations the way a person would in an error message', () => {
    expect(formatDuration(800)).toBe('800 ms');
    expect(formatDuration(60_000)).toBe('60 s');
    expect(formatDuration(90_400)).toBe('91 s');
    expect(formatDuration(5 * 60_000)).toBe('5 minutes');
    expect(formatDuration(4 * 60_000 + 12_000)).toBe('4 min 12 s');
    expect(formatDuration(90 * 86_400_000)).toBe('90 days');
    expect(formatDuration(2 * 86_400_000 + 60_000)).toBe('2881 minutes');
  });
});
