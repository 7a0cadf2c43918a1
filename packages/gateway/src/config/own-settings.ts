/**
 * The gateway's own settings that read as they are declared (a whole number, a switch, a value), each declared once:
 * its flag (which gives its environment variable, BROWSERMCP_ and the flag in capitals, and its config-file key, the
 * flag in camelCase), its name in the config (the key, the same from here to where it is used), its default, bounds,
 * modes and help. The options (config/options.ts places them in --help's order), the reads and the config's fields
 * (`OwnSettingValues`, part of GatewayConfig) all come from this table; a test walks it (test/own-settings.test.ts).
 * The settings both CLIs share live in the daemon's command-line.ts, the tool settings in the protocol's table.
 */
import type { Option } from 'commander';
import { DEFAULT_CDP_TIMEOUT_MS, entryAttribute, entryOption, readTable, type SettingEntry, type SettingValues, type TableValues } from '@browsermcp/daemon';
import { DEFAULT_DAEMON_PORT } from '@browsermcp/protocol';
import { PROGRESS_INTERVAL_MS } from '../mcp-server.js';
import { appliesIn, cdpOnly, LOCAL_FILES, overHttp, type Mode, type ModeRule } from './modes.js';

/** A setting of the daemon's kinds (setting-table.ts), and where it applies (config/modes.ts): every mode when absent. */
export type OwnSettingSpec = SettingEntry & {
  readonly modes?: readonly Mode[];
  /** Its own refusal in the modes it does not apply in. */
  readonly refusal?: ModeRule['refusal'];
  /** It applies to MCP over HTTP only (--port), refused over stdio: true, or its own sentence. */
  readonly http?: true | string;
};

/** How long a 2026-07-28 client's browser state outlives its last request when --keep-browser-state does not say. */
export const STATELESS_STATE_KEEP_MS = 30 * 60_000;

/** --rate-limit's default on a host other machines reach (on loopback: off), requests per minute per key. */
export const RATE_LIMIT_OFF_LOOPBACK = 100;

export const OWN_SETTINGS = {
  cdpTimeoutMs: {
    kind: 'int',
    flag: 'cdp-timeout',
    arg: 'ms',
    min: 0,
    max: 3_600_000,
    default: DEFAULT_CDP_TIMEOUT_MS,
    help: 'with --cdp-endpoint: how long connecting may take; 0 waits as long as it takes',
    modes: ['cdp'],
    refusal: cdpOnly('--cdp-timeout'),
  },
  allowUnrestrictedFileAccess: {
    kind: 'switch',
    flag: 'allow-unrestricted-file-access',
    help: "input files may come from anywhere on this machine, and pages may open file:// URLs, but never the server's own files, /proc, /sys or /dev (default: only the roots above, file:// blocked)",
    modes: LOCAL_FILES,
  },
  trustClientRoots: {
    kind: 'switch',
    flag: 'trust-client-roots',
    help: 'over HTTP on loopback, the MCP roots a client declares count wherever they are (default: only inside --file-roots; over stdio they always count)',
    modes: LOCAL_FILES,
    http: '--trust-client-roots is for HTTP: over stdio a client owns the gateway and its MCP roots always count. Drop --trust-client-roots.',
  },
  extension: {
    kind: 'switch',
    flag: 'extension',
    help: 'drive your own browser through the browsermcp extension instead of launching one (default: launch one)',
  },
  daemonPort: {
    kind: 'int',
    flag: 'daemon-port',
    arg: 'port',
    min: 0,
    max: 65535,
    default: DEFAULT_DAEMON_PORT,
    help: 'with --extension: port of the endpoint the extension connects to (ws://127.0.0.1:<port>/extension)',
    modes: ['extension'],
    refusal: "--daemon-port is where your browser's extension connects, with --extension: add --extension, or drop --daemon-port.",
  },
  daemonToken: {
    kind: 'text',
    flag: 'daemon-token',
    arg: 'token',
    help: 'access token for --daemon-url (browsermcp-daemon token --user U --secret-file F) (default: none)',
    modes: ['daemon'],
    refusal: '--daemon-token is sent to a remote daemon: add --daemon-url, or drop --daemon-token.',
  },
  daemonBrowser: {
    kind: 'text',
    flag: 'daemon-browser',
    arg: 'id',
    help: 'with --daemon-url: the browser to drive (default: the first connected)',
    modes: ['daemon'],
    refusal: "--daemon-browser picks one of a remote daemon's browsers: add --daemon-url, or drop --daemon-browser.",
  },
  rateLimit: {
    kind: 'int',
    flag: 'rate-limit',
    arg: 'n',
    min: 1,
    max: 1_000_000,
    help: `requests per minute per key (default: ${RATE_LIMIT_OFF_LOOPBACK} on a non-loopback host, off on loopback)`,
    http: true,
  },
  sessionIdleMs: {
    kind: 'int',
    flag: 'session-idle-timeout',
    arg: 'seconds',
    min: 0,
    max: 604_800,
    default: 1800,
    scale: 1000,
    help: 'close sessions (and their tabs) whose client sent nothing for this long; a session that never called a tool goes after 5 minutes at most; 0 never',
    http: true,
  },
  progressIntervalMs: {
    kind: 'int',
    flag: 'progress-interval',
    arg: 'seconds',
    min: 1,
    max: 3600,
    default: PROGRESS_INTERVAL_MS / 1000,
    scale: 1000,
    help: "how often a call that waits (a slow page, the person's approval, a starting browser) sends a progress notification, to clients that ask for them",
  },
  saveSession: {
    kind: 'switch',
    flag: 'save-session',
    help: "record each session's tool calls and answers (Markdown) in session-<time>-<session>/session.md under the caller's output directory, written by the gateway (default: off)",
  },
  maxSessions: {
    kind: 'int',
    flag: 'max-sessions',
    arg: 'n',
    min: 1,
    max: 100_000,
    default: 200,
    help: 'most MCP sessions open at once over HTTP; more are refused (503) until some close',
    http: true,
  },
  maxBrowserStatesPerKey: {
    kind: 'int',
    flag: 'max-browser-states-per-key',
    arg: 'n',
    min: 1,
    max: 1000,
    default: 10,
    help: 'most browser states (browser_state_open) one API key may have open at once; at the limit browser_state_open is refused, naming them, until one is closed or expires',
  },
  maxSessionsPerKey: {
    kind: 'int',
    flag: 'max-sessions-per-key',
    arg: 'n',
    min: 1,
    max: 100_000,
    default: 50,
    help: "most MCP sessions one API key may have open; at the limit the key's least recently used idle session is closed for a new one (its client is told why), and only while all are busy is a new one refused (429)",
    http: true,
  },
} as const satisfies Record<string, OwnSettingSpec>;

export type OwnSettingKey = keyof typeof OWN_SETTINGS;
export const OWN_SETTING_KEYS = Object.keys(OWN_SETTINGS) as OwnSettingKey[];

/** The config's fields for these settings, typed from the table: a number with a default is always there. */
export type OwnSettingValues = TableValues<typeof OWN_SETTINGS>;

/** A setting's commander attribute (its config-file key): the flag in camelCase ("session-idle-timeout" → "sessionIdleTimeout"). */
export function ownSettingAttribute(key: OwnSettingKey): string {
  return entryAttribute(OWN_SETTINGS[key]);
}

/** Fresh options for the table's settings (an Option belongs to one program), by key, each with its modes. */
export function ownOptions(): Readonly<Record<OwnSettingKey, Option>> {
  return Object.fromEntries(
    OWN_SETTING_KEYS.map((key) => {
      const spec: OwnSettingSpec = OWN_SETTINGS[key];
      const option = entryOption(spec);
      if (spec.http) overHttp(option, spec.http === true ? undefined : spec.http);
      return [key, spec.modes ? appliesIn(option, spec.modes, spec.refusal) : option];
    }),
  ) as Record<OwnSettingKey, Option>;
}

/** The table's settings, read and checked (a number within its bounds, in the config's unit). */
export function readOwnSettings(v: SettingValues): OwnSettingValues {
  return readTable(v, OWN_SETTINGS);
}
