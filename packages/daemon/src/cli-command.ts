import { readFileSync } from 'node:fs';
import { type Command, CommanderError } from 'commander';
import { ConfigError } from './command-line.js';
import type { StartDaemonOptions } from './daemon.js';
import type { TokenVerifier } from './server/auth.js';

/** The daemon's command: every subcommand's help and errors say it. */
export const DAEMON_NAME = 'browsermcp-daemon';

/** What a command line asks the daemon to do (cli-args.ts reads it; cli.ts does it). */
export type CliCommand =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'nats-config'; dir: string; instances: string[]; maxStore: string }
  | { kind: 'token'; userId: string; secret: string; ttlSeconds: number; audience: string | undefined; issuer: string | undefined }
  | {
      kind: 'serve';
      options: StartDaemonOptions;
      verifier: TokenVerifier | undefined;
      /** Where the pairing secret is kept, on loopback: extensions pair (required without auth). */
      pairingFile: string | undefined;
      logLevel: string;
      /** One line per old spelling used, naming the new one: the CLI prints them to stderr. */
      deprecations: string[];
    };

/**
 * Parses argv with commander, without letting it print or exit: help text comes back as a value, and commander's own
 * complaints (an unknown flag, a missing value) become ConfigErrors like every other bad value.
 */
export function parse(program: Command, argv: string[]): string | undefined {
  let out = '';
  program.exitOverride().configureOutput({ writeOut: (text) => (out += text), writeErr: () => undefined });
  try {
    program.parse(argv, { from: 'user' });
    return undefined;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help') return out;
    throw new ConfigError(`${error.message.replace(/^error: /, '')}; run ${program.name()} --help for every option`);
  }
}

/** A secret from a file (an auth secret), at least 32 bytes; `flag` names the option in the error. */
export function readSecret(path: string, flag: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`--${flag} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (Buffer.byteLength(text) < 32) throw new ConfigError(`--${flag} ${path} must hold at least 32 bytes; create one with: openssl rand -hex 32 > ${path}`);
  return text;
}

/** Seconds from "90", "90s", "15m", "12h" or "30d"; `flag` names the option in the error. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(text);
  if (!m || Number(m[1]) === 0)
    throw new ConfigError(`--${flag} must be a positive number of seconds, or a number with s, m, h or d such as 12h (got "${text}")`);
  return Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
}
