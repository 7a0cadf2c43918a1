import type { Option } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildDaemonProgram, parseCli } from '../src/cli-args.js';
import { boundsOf, ConfigError } from '../src/command-line.js';

// Walks every option of browsermcp-daemon that takes a number: each is declared with its bounds and default once
// (intOption), --help shows them, and a value past them is refused the same way from the flag and from its variable.

/** Options that take a number with a fraction, read by their own parsers. */
const FRACTIONAL = new Set(['--heartbeat']);
const NUMBER_ARG = /<(n|ms|seconds|port|bytes|MB|minutes)>/;

afterEach(() => {
  vi.unstubAllEnvs();
});

const options = buildDaemonProgram().options.filter((o) => !o.hidden);
const numbers = options.filter((o) => NUMBER_ARG.test(o.flags) && !FRACTIONAL.has(o.long!));
const variable = (o: Option) => o.envVar!;

/** What parsing a command line and variables said: a ConfigError's message, or nothing. */
function refusal(argv: string[]): string | undefined {
  try {
    parseCli(argv, {});
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

describe('whole-number settings of browsermcp-daemon', () => {
  it('declares every option that takes a number with its bounds, and a default within them', () => {
    expect(numbers.length).toBeGreaterThan(15);
    for (const option of numbers) {
      const bounds = boundsOf(option);
      expect(bounds, `${option.long} is declared with intOption`).toBeDefined();
      expect(bounds!.min).toBeLessThanOrEqual(bounds!.max);
      if (option.defaultValue !== undefined) {
        const n = Number(option.defaultValue);
        expect(Number.isInteger(n) && n >= bounds!.min && n <= bounds!.max, `${option.long}'s default ${String(option.defaultValue)}`).toBe(true);
      }
    }
  });

  it('shows each one’s bounds and default in --help', () => {
    const help = parseCli(['--help']);
    if (help.kind !== 'help') throw new Error('expected help');
    // Each option's own lines: from its flag to the next option's.
    const blocks = help.text.split(/\n(?= {2}-)/).map((block) => block.replace(/\s+/g, ' ').trim());
    for (const option of numbers) {
      const { min, max } = boundsOf(option)!;
      const block = blocks.find((b) => b.startsWith(`${option.long} `));
      const shown = option.defaultValue === undefined ? `(${min} to ${max})` : `(${min} to ${max}) (default: "${String(option.defaultValue)}"`;
      expect(block, option.long).toContain(shown);
    }
  });

  it('refuses a value past either bound, from the flag and from its variable, naming the flag and the bounds', () => {
    for (const option of numbers) {
      const { min, max } = boundsOf(option)!;
      const expected = `${option.long} must be a whole number from ${min} to ${max}`;
      expect(refusal([option.long!, String(max + 1)]), option.long).toContain(`${expected}, got "${max + 1}"`);
      expect(refusal([option.long!, `${min}.5`]), option.long).toContain(expected);
      vi.stubEnv(variable(option), String(min - 1));
      expect(refusal([]), variable(option)).toContain(`${expected}, got "${min - 1}"`);
      vi.unstubAllEnvs();
    }
  });
});
