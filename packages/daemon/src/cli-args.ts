import { readFileSync } from 'node:fs';
import { hs256Verifier, publicKeyVerifier, type TokenVerifier } from './server/auth.js';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { optionalCapabilities, type Capability } from '@browsermcp/tools';
import { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_GRACE_MS } from './router/index.js';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_HOST, DEFAULT_PORT, EXTENSION_ID, isLoopbackHost } from './server/constants.js';
import type { StartDaemonOptions } from './daemon.js';
import { refusedBrowserArg } from './local/browser.js';

/** A bad command line: the CLI prints the message and exits with status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface FlagSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  default: string;
  help: string;
}

/** Every flag of `browsermcp-daemon` with its default as --help prints it. */
export const SERVE_FLAGS: Record<string, FlagSpec> = {
  port: { type: 'string', default: String(DEFAULT_PORT), help: 'TCP port to listen on' },
  host: { type: 'string', default: DEFAULT_HOST, help: 'address to bind; keep it on loopback unless --auth-secret-file is set' },
  'auth-secret-file': { type: 'string', default: '(none: no auth)', help: 'file with the HS256 secret (≥ 32 bytes) that access tokens are signed with' },
  'auth-public-key-file': { type: 'string', default: '(none)', help: 'PEM public key (RSA → RS256, EC P-256 → ES256) of whoever signs the access tokens, instead of a shared secret' },
  'grace-period': { type: 'string', default: `${DEFAULT_GRACE_MS / 1000}`, help: 'seconds a disconnected browser keeps its sessions' },
  'command-timeout': { type: 'string', default: `${DEFAULT_COMMAND_TIMEOUT_MS / 1000}`, help: 'seconds one command may take' },
  heartbeat: { type: 'string', default: `${DEFAULT_HEARTBEAT_MS / 1000}`, help: 'seconds between WebSocket pings; a peer missing one pong is dropped' },
  'allowed-host': { type: 'string', multiple: true, default: 'localhost, 127.0.0.1, [::1]', help: 'another Host header name the daemon may be reached by (repeatable)' },
  'allowed-origin': { type: 'string', multiple: true, default: '(none)', help: 'a browser Origin that may call the HTTP API (repeatable)' },
  'extension-id': { type: 'string', multiple: true, default: EXTENSION_ID, help: 'a Chrome extension id that may connect to /extension (repeatable)' },
  'no-local': { type: 'boolean', default: 'false', help: 'run without the local browser (extensions only)' },
  'executable-path': { type: 'string', default: '(auto-detected)', help: 'Chrome/Chromium to launch' },
  headed: { type: 'boolean', default: 'false', help: 'show the browser window instead of running headless' },
  viewport: { type: 'string', default: '1280x720', help: 'viewport of new pages, WIDTHxHEIGHT, or "none"' },
  'user-data-dir': { type: 'string', default: '(a fresh temporary profile)', help: 'persistent profile directory' },
  'browser-arg': { type: 'string', multiple: true, default: '(none)', help: 'extra Chromium flag (repeatable), e.g. --browser-arg=--lang=de' },
  'cdp-endpoint': { type: 'string', default: '(launch one)', help: 'connect to a running browser (http://host:port or ws://…) instead of launching' },
  'shared-browser-context': { type: 'boolean', default: 'false', help: 'all sessions share one browser context' },
  'output-dir': { type: 'string', default: './browsermcp-output', help: 'where screenshots and PDFs are saved' },
  'file-root': { type: 'string', multiple: true, default: '(output dir only)', help: 'another directory uploads and storage states may be read from (repeatable)' },
  caps: { type: 'string', default: '(none)', help: `optional tool capabilities, comma-separated: ${optionalCapabilities.join(',')}` },
  'log-level': { type: 'string', default: 'info', help: 'fatal, error, warn, info, debug, trace or silent' },
  help: { type: 'boolean', default: '', help: 'print this help' },
  version: { type: 'boolean', default: '', help: 'print the version' },
};

export const TOKEN_FLAGS: Record<string, FlagSpec> = {
  user: { type: 'string', default: '(required)', help: 'the user id the token names (its "sub")' },
  'secret-file': { type: 'string', default: '(required)', help: "the daemon's --auth-secret-file" },
  ttl: { type: 'string', default: '30d', help: 'lifetime: seconds, or a number with s, m, h or d' },
  help: { type: 'boolean', default: '', help: 'print this help' },
};

function usage(title: string, flags: Record<string, FlagSpec>): string {
  const lines = Object.entries(flags).map(([name, spec]) => {
    const left = `  --${name}${spec.type === 'string' ? ' <value>' : ''}`;
    const def = spec.default ? ` (default: ${spec.default})` : '';
    return `${left.padEnd(34)}${spec.help}${def}`;
  });
  return `${title}\n\nOptions:\n${lines.join('\n')}\n`;
}

export const SERVE_HELP = usage(
  'Usage: browsermcp-daemon [options]\n       browsermcp-daemon token --user <id> --secret-file <file> [--ttl 30d]\n\nRuns the browsermcp daemon: HTTP (/health, /sessions, /commands) and WebSocket (/extension, /mcp) endpoints.',
  SERVE_FLAGS,
);
export const TOKEN_HELP = usage('Usage: browsermcp-daemon token --user <id> --secret-file <file> [--ttl 30d]\n\nPrints an access token for /mcp and /extension.', TOKEN_FLAGS);

function parse(argv: string[], flags: Record<string, FlagSpec>) {
  const options = Object.fromEntries(Object.entries(flags).map(([name, spec]) => [name, { type: spec.type, ...(spec.multiple ? { multiple: true } : {}) }]));
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as Record<string, string | boolean | string[] | undefined>;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}; see --help`);
  }
}

function seconds(value: string | undefined, flag: string, fallbackMs: number, min = 0): number {
  if (value === undefined) return fallbackMs;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n * 1000 > 2_147_483_647) {
    throw new UsageError(`--${flag} must be a number of seconds${min > 0 ? ` above ${min}` : ''} (got "${value}")`);
  }
  return Math.round(n * 1000);
}

function readSecret(path: string, flag: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new UsageError(`--${flag} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (Buffer.byteLength(text) < 32) throw new UsageError(`--${flag} ${path} must hold at least 32 bytes; create one with: openssl rand -hex 32 > ${path}`);
  return text;
}

export type CliCommand =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'token'; userId: string; secret: string; ttlSeconds: number }
  | { kind: 'serve'; options: StartDaemonOptions; verifier: TokenVerifier | undefined; logLevel: string };

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** Reads the command line; throws UsageError naming the flag and the fix for a bad value. */
export function parseCli(argv: string[]): CliCommand {
  if (argv[0] === 'token') return parseToken(argv.slice(1));
  const v = parse(argv, SERVE_FLAGS);
  if (v.help) return { kind: 'help', text: SERVE_HELP };
  if (v.version) return { kind: 'version' };
  const str = (name: string) => v[name] as string | undefined;
  const list = (name: string) => (v[name] as string[] | undefined) ?? [];

  const portText = str('port');
  const port = portText === undefined ? DEFAULT_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535 (got "${portText}")`);
  const host = str('host') ?? DEFAULT_HOST;
  const secretFile = str('auth-secret-file');
  const secret = secretFile ? readSecret(secretFile, 'auth-secret-file') : undefined;
  const publicKeyFile = str('auth-public-key-file');
  const publicKey = publicKeyFile ? readSecret(publicKeyFile, 'auth-public-key-file') : undefined;
  if (secret && publicKey) throw new UsageError('--auth-secret-file and --auth-public-key-file are two ways to check tokens: pick one');
  let verifier: TokenVerifier | undefined;
  try {
    verifier = secret ? hs256Verifier(secret) : publicKey ? publicKeyVerifier(publicKey) : undefined;
  } catch (error) {
    throw new UsageError(`--${secret ? 'auth-secret-file' : 'auth-public-key-file'}: ${(error as Error).message}`);
  }
  if (!secret && !publicKey && !isLoopbackHost(host)) {
    throw new UsageError(`--host ${host} exposes the daemon beyond this machine; set --auth-secret-file (or --auth-public-key-file) too`);
  }
  const logLevel = str('log-level') ?? 'info';
  if (!LOG_LEVELS.has(logLevel)) throw new UsageError(`--log-level must be one of ${[...LOG_LEVELS].join(', ')} (got "${logLevel}")`);

  let viewport: { width: number; height: number } | null | undefined;
  const viewportText = str('viewport');
  if (viewportText === 'none') viewport = null;
  else if (viewportText !== undefined) {
    const m = /^(\d{2,5})x(\d{2,5})$/.exec(viewportText);
    if (!m) throw new UsageError(`--viewport must be WIDTHxHEIGHT such as 1280x720, or "none" (got "${viewportText}")`);
    viewport = { width: Number(m[1]), height: Number(m[2]) };
  }
  const capsText = str('caps');
  const caps = capsText ? capsText.split(',').map((c) => c.trim()).filter(Boolean) : [];
  const known = new Set<string>(optionalCapabilities);
  for (const cap of caps) if (!known.has(cap)) throw new UsageError(`--caps: unknown capability "${cap}"; use ${[...known].join(', ')}`);
  const cdpEndpoint = str('cdp-endpoint');
  if (cdpEndpoint !== undefined && !/^(https?|wss?):\/\/[^/]+/i.test(cdpEndpoint)) {
    throw new UsageError(`--cdp-endpoint must be an http:// or ws:// URL such as http://127.0.0.1:9222 (got "${cdpEndpoint}")`);
  }

  const refusedArg = refusedBrowserArg(list('browser-arg'));
  if (refusedArg) throw new UsageError(`--browser-arg: ${refusedArg}`);

  const local = v['no-local']
    ? null
    : {
        outputDir: resolve(str('output-dir') ?? 'browsermcp-output'),
        executablePath: str('executable-path'),
        headless: !v.headed,
        ...(viewport !== undefined ? { viewport } : {}),
        userDataDir: str('user-data-dir'),
        args: list('browser-arg'),
        cdpEndpoint,
        sharedBrowserContext: v['shared-browser-context'] === true,
        fileRoots: list('file-root'),
        caps: caps as Capability[],
      };
  const graceMs = seconds(str('grace-period'), 'grace-period', DEFAULT_GRACE_MS);
  return {
    kind: 'serve',
    verifier,
    logLevel,
    options: {
      host,
      port,
      graceMs,
      commandTimeoutMs: seconds(str('command-timeout'), 'command-timeout', DEFAULT_COMMAND_TIMEOUT_MS, 0.001),
      heartbeatMs: seconds(str('heartbeat'), 'heartbeat', DEFAULT_HEARTBEAT_MS, 0.001),
      allowedHosts: list('allowed-host'),
      allowedOrigins: list('allowed-origin'),
      ...(v['extension-id'] ? { extensionIds: list('extension-id') } : {}),
      local,
    },
  };
}

function parseToken(argv: string[]): CliCommand {
  const v = parse(argv, TOKEN_FLAGS);
  if (v.help) return { kind: 'help', text: TOKEN_HELP };
  const userId = v.user as string | undefined;
  if (!userId) throw new UsageError('token needs --user <id>');
  const secretFile = v['secret-file'] as string | undefined;
  if (!secretFile) throw new UsageError('token needs --secret-file <file> (the daemon\'s --auth-secret-file)');
  const ttlText = (v.ttl as string | undefined) ?? '30d';
  const m = /^(\d+)([smhd]?)$/.exec(ttlText);
  if (!m || Number(m[1]) === 0) throw new UsageError(`--ttl must be a positive number of seconds, or a number with s, m, h or d such as 12h (got "${ttlText}")`);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  return { kind: 'token', userId, secret: readSecret(secretFile, 'secret-file'), ttlSeconds: Number(m[1]) * unit };
}
