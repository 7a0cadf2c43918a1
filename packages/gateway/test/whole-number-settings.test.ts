import { boundsOf, ConfigError } from '@browsermcp/daemon';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildProgram, resolveConfig } from '../src/index.js';

// Walks every option of browsermcp-gateway that takes a number, as the daemon's test walks its own: each is
// declared with its bounds and default once (intOption), --help shows them, and a value past them is refused the
// same way from the flag and from its variable.

/** Options that take a number with a fraction, read by their own parsers. */
const FRACTIONAL = new Set(['--keep-browser-state']);
/** What an option needs beside it to apply (its mode). */
const HTTP = ['--port', '0'];
const MODE: Record<string, string[]> = {
  '--cdp-timeout': ['--cdp-endpoint', 'http://127.0.0.1:9'],
  '--daemon-port': ['--extension'],
  // Settings of MCP over HTTP, refused over stdio.
  '--rate-limit': HTTP,
  '--session-idle-timeout': HTTP,
  '--max-sessions': HTTP,
  '--max-sessions-per-key': HTTP,
  '--max-connections-per-address': HTTP,
  '--request-timeout': HTTP,
};
const NUMBER_ARG = /<(n|ms|seconds|port|bytes|MB|minutes)>/;

afterEach(() => {
  vi.unstubAllEnvs();
});

const numbers = buildProgram()
  .options.filter((o) => !o.hidden)
  .filter((o) => NUMBER_ARG.test(o.flags) && !FRACTIONAL.has(o.long!));

function refusal(argv: string[]): string | undefined {
  try {
    resolveConfig(buildProgram().exitOverride().parse(argv, { from: 'user' }), {});
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

describe('whole-number settings of browsermcp-gateway', () => {
  it('declares every option that takes a number with its bounds, and a default within them', () => {
    expect(numbers.length).toBeGreaterThan(15);
    for (const option of numbers) {
      const bounds = boundsOf(option);
      expect(bounds, `${option.long} is declared with intOption`).toBeDefined();
      if (option.defaultValue !== undefined) {
        const n = Number(option.defaultValue);
        expect(Number.isInteger(n) && n >= bounds!.min && n <= bounds!.max, `${option.long}'s default ${String(option.defaultValue)}`).toBe(true);
      }
    }
  });

  it('shows each one’s bounds and default in --help', () => {
    const blocks = buildProgram()
      .helpInformation()
      .split(/\n(?= {2}-)/)
      .map((block) => block.replace(/\s+/g, ' ').trim());
    for (const option of numbers) {
      const { min, max } = boundsOf(option)!;
      const shown = option.defaultValue === undefined ? `(${min} to ${max})` : `(${min} to ${max}) (default: "${String(option.defaultValue)}"`;
      expect(
        blocks.find((b) => b.startsWith(`${option.long} `)),
        option.long,
      ).toContain(shown);
    }
  });

  it('refuses a value past either bound, from the flag and from its variable, naming the flag and the bounds', () => {
    for (const option of numbers) {
      const { min, max } = boundsOf(option)!;
      const mode = MODE[option.long!] ?? [];
      const expected = `${option.long} must be a whole number from ${min} to ${max}`;
      expect(refusal([...mode, option.long!, String(max + 1)]), option.long).toContain(`${expected}, got "${max + 1}"`);
      vi.stubEnv(option.envVar!, String(min - 1));
      expect(refusal(mode), option.envVar).toContain(`${expected}, got "${min - 1}"`);
      vi.unstubAllEnvs();
    }
  });
});
