/**
 * The settings browsermcp-daemon and browsermcp-gateway share, in one vocabulary: the gateway's spellings (which
 * follow @playwright/mcp), one environment variable each (BROWSERMCP_<FLAG>), the same --config JSON file, and one
 * check per value. Each CLI builds its commander program from `sharedOptions()` plus its own options, then reads the
 * shared values with `readSharedSettings`. It lives here because the gateway depends on the daemon, not the reverse.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Option } from 'commander';
import { optionalCapabilities, type Capability } from '@browsermcp/tools';
import { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_GRACE_PERIOD_MS, DEFAULT_MAX_BROWSER_STATES } from './router/index.js';
import { DEFAULT_MAX_KEY_MEMORY_MB } from './local/key-memory.js';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './server/connections.js';
import { DEFAULT_HOST, EXTENSION_ID, EXTENSION_ID_PATTERN } from './server/constants.js';
import { defaultPairingFile } from './server/pairing-secret.js';
import { DEFAULT_VIEWPORT, refusedBrowserArg } from './local/browser.js';
import { BROWSER_CHANNELS, findChannel } from './local/chrome.js';
import { FILE_PATH_MODES } from './local/files.js';
import { ConfigError, intOption, repeatableOption, serverFile, settingOption, type SettingValues } from './setting-values.js';
import { readTable, tableOptions, type SettingEntry, type TableValues } from './setting-table.js';

export {
  applySettingSources,
  boundsOf,
  ConfigError,
  ENV_PREFIX,
  intOption,
  repeatableOption,
  serverFile,
  serverFilePaths,
  settingOption,
  SettingValues,
} from './setting-values.js';
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = DEFAULT_COMMAND_TIMEOUT_MS / 1000;
export const DEFAULT_GRACE_PERIOD_SECONDS = DEFAULT_GRACE_PERIOD_MS / 1000;
/**
 * In this user's cache: a server started from any folder does not litter it with screenshots, and no other local
 * user can make the directory first (as they could a fixed name in the shared temporary directory).
 */
export const DEFAULT_OUTPUT_DIR = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'browsermcp', 'output');
export const DEFAULT_VIEWPORT_SIZE = `${DEFAULT_VIEWPORT.width}x${DEFAULT_VIEWPORT.height}`;
/** --idle-timeout's default for a headless browser (a headed one stays): an hour, as @playwright/mcp. */
export const DEFAULT_IDLE_TIMEOUT_MS = 3_600_000;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The shared settings that read as they are declared, each declared once here (setting-table.ts). */
export const SHARED_SETTINGS = {
  host: { kind: 'text', flag: 'host', arg: 'host', default: DEFAULT_HOST, help: 'address to bind' },
  sharedBrowserContext: {
    kind: 'switch',
    flag: 'shared-browser-context',
    help: 'all sessions share one browser context (cookies) instead of one each (default: one each)',
  },
  outputMaxBytes: {
    kind: 'int',
    flag: 'output-max-size',
    arg: 'bytes',
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    help: "most bytes of saved files each caller's output directory keeps: past it the oldest files are deleted (default: no limit)",
  },
  fileRoots: {
    kind: 'list',
    flag: 'file-roots',
    arg: 'list',
    help: 'more directories uploads and storage states may be read from, comma-separated (default: none)',
  },
  gracePeriodMs: {
    kind: 'int',
    flag: 'grace-period',
    arg: 'seconds',
    min: 0,
    max: 86_400,
    default: DEFAULT_GRACE_PERIOD_SECONDS,
    scale: 1000,
    help: 'how long a session outlives its dropped connection',
  },
  maxBrowserStates: {
    kind: 'int',
    flag: 'max-browser-states',
    arg: 'n',
    min: 1,
    max: 100_000,
    default: DEFAULT_MAX_BROWSER_STATES,
    help: "most browser states kept at once, every key's together (each holds a browser context and its tabs); at the limit a new one is refused until one closes",
  },
  maxKeyMemoryMb: {
    kind: 'int',
    flag: 'max-key-memory',
    arg: 'MB',
    min: 64,
    max: 1_048_576,
    default: DEFAULT_MAX_KEY_MEMORY_MB,
    help: "memory all of one key's tabs may hold together (their pages' JavaScript heaps and buffers), across its sessions and browser states: past it the key's biggest tab is closed and its agent told why",
  },
  commandTimeoutMs: {
    kind: 'int',
    flag: 'command-timeout',
    arg: 'seconds',
    min: 1,
    max: 3600,
    default: DEFAULT_COMMAND_TIMEOUT_SECONDS,
    scale: 1000,
    help: 'longest a single tool call may take (a browser starting for it does not count)',
  },
  maxConnectionsPerAddress: {
    kind: 'int',
    flag: 'max-connections-per-address',
    arg: 'n',
    min: 1,
    max: 100_000,
    default: DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress,
    help: 'most connections one client address may hold open (streams and WebSockets included); more are answered 503',
  },
  outputDir: {
    kind: 'path',
    flag: 'output-dir',
    arg: 'dir',
    default: DEFAULT_OUTPUT_DIR,
    help: 'where screenshots, PDFs and GIFs are saved (uploads are allowed from here too)',
  },
  filePaths: {
    kind: 'words',
    flag: 'file-paths',
    arg: 'mode',
    values: FILE_PATH_MODES,
    default: 'relative',
    help: "how answers show where a file was saved: relative (to the client's workspace root, its first MCP root or the working directory, when the file is inside it) or absolute",
  },
  pairingFile: {
    kind: 'path',
    flag: 'pairing-file',
    arg: 'file',
    // Worked out when the options are made: the environment may name another config folder by then.
    default: () => defaultPairingFile(),
    serverFile: true,
    help: 'the secret the extension is paired with (made on first start, 0600; its pairing code is printed at start)',
  },
  extensionIds: {
    kind: 'list',
    flag: 'extension-id',
    arg: 'ids',
    help: `Chrome extension ids that may connect to /extension, comma-separated or repeated, e.g. the Chrome Web Store's (default: ${EXTENSION_ID}, the development build)`,
  },
  logLevel: { kind: 'words', flag: 'log-level', arg: 'level', values: LOG_LEVELS, default: 'info', help: `log level: ${LOG_LEVELS.join(', ')}` },
  requestTimeoutMs: {
    kind: 'int',
    flag: 'request-timeout',
    arg: 'seconds',
    min: 1,
    max: 3600,
    default: DEFAULT_CONNECTION_LIMITS.requestTimeoutMs / 1000,
    scale: 1000,
    help: "how long a request's headers and body may take to arrive; slower clients are cut (408)",
  },
} as const satisfies Record<string, SettingEntry>;
export type SharedTableKey = keyof typeof SHARED_SETTINGS;
/** The settings both CLIs have: the table's, by key, and the others by their commander attribute name (the config file's key). */
export type SharedSettingKey =
  | SharedTableKey
  | 'port'
  | 'headless'
  | 'executablePath'
  | 'browser'
  | 'idleTimeout'
  | 'profileDirName'
  | 'browserArg'
  | 'sandbox'
  | 'noSandbox'
  | 'cdpEndpoint'
  | 'userDataDir'
  | 'viewportSize'
  | 'caps'
  | 'allowedHosts'
  | 'corsOrigins'
  | 'config';

/**
 * Where a program's option says something of its own: the daemon always listens (so --port has a default), the
 * gateway without --port speaks stdio; what the grace period keeps alive differs too. Defaults of the other settings
 * are the same in both and are not overridable, on purpose.
 */
export type SharedOptionOverrides = Partial<Record<SharedSettingKey, { description?: string }>> & {
  port: { description: string; default?: number };
};

/** Fresh commander options for the shared settings (an Option belongs to one program). */
export function sharedOptions(overrides: SharedOptionOverrides): Readonly<Record<SharedSettingKey, Option>> {
  const describe = (key: SharedSettingKey, text: string) => overrides[key]?.description ?? text;
  const port = intOption('--port <port>', overrides.port.description, { min: 0, max: 65535, default: overrides.port.default });
  const table = tableOptions(
    SHARED_SETTINGS,
    Object.fromEntries(Object.keys(SHARED_SETTINGS).map((key) => [key, overrides[key as SharedTableKey]?.description])),
  );
  return {
    ...table,
    port,
    headless: settingOption('--headless', describe('headless', 'run the browser headless (default: headed when a display exists, else headless)')),
    executablePath: settingOption(
      '--executable-path <path>',
      describe('executablePath', 'Chrome/Chromium to launch (default: CHROME_PATH, then auto-detected)'),
    ),
    browser: settingOption(
      '--browser <name>',
      describe(
        'browser',
        `the Chrome-family browser to launch, found where it installs: ${BROWSER_CHANNELS.join(', ')}; firefox and webkit are refused (default: the first Chrome or Chromium found)`,
      ),
    ),
    idleTimeout: intOption(
      '--idle-timeout <ms>',
      describe(
        'idleTimeout',
        "close the launched browser after this long without a tool call, its sessions' pages with it (they are told); the next call starts it again; 0 never (default: an hour when headless, never when headed)",
      ),
      { min: 0, max: 7 * 86_400_000 },
    ),
    profileDirName: settingOption(
      '--profile-dir-name <name>',
      describe('profileDirName', 'with --user-data-dir: the profile directory in it to use, e.g. "Profile 1" (default: Chrome\'s own, "Default")'),
    ),
    browserArg: repeatableOption(
      '--browser-arg <flag>',
      describe('browserArg', 'extra Chromium flag for the launched browser, e.g. --browser-arg=--lang=de; repeat for more (default: none)'),
    ),
    sandbox: settingOption(
      '--sandbox',
      describe('sandbox', "run the launched browser in Chromium's sandbox, even as root (default: on, off when running as root)"),
    ),
    noSandbox: settingOption(
      '--no-sandbox',
      describe('noSandbox', "run the launched browser without Chromium's sandbox (default: on, off when running as root)"),
    ),
    cdpEndpoint: settingOption(
      '--cdp-endpoint <url>',
      describe('cdpEndpoint', 'connect to a running browser (http://host:port or ws://…) instead of launching one (default: launch one)'),
    ),
    userDataDir: serverFile(
      settingOption(
        '--user-data-dir <dir>',
        describe('userDataDir', 'persistent browser profile (sessions share it, each owns its tabs) (default: a fresh temporary profile)'),
      ),
    ),
    viewportSize: settingOption('--viewport-size <WxH>', describe('viewportSize', 'viewport of new pages, or "none" to follow the window')).default(
      DEFAULT_VIEWPORT_SIZE,
    ),
    caps: settingOption('--caps <list>', describe('caps', `optional tool capabilities, comma-separated: ${optionalCapabilities.join(', ')} (default: none)`)),
    allowedHosts: settingOption(
      '--allowed-hosts <list>',
      describe(
        'allowedHosts',
        'more Host names to accept (any port), comma-separated; "*" turns the Host check off (default: only localhost, 127.0.0.1 and [::1])',
      ),
    ),
    corsOrigins: settingOption(
      '--cors-origins <list>',
      describe('corsOrigins', 'web origins whose pages may call this server (e.g. https://app.example.com), comma-separated (default: none)'),
    ),
    config: serverFile(
      settingOption('--config <file>', describe('config', 'JSON file with any of these options (camelCase keys); flags and env override it (default: none)')),
    ),
  };
}

/** The shared settings, checked. Field names match the gateway's config, which extends this. */
export interface SharedSettings extends TableValues<typeof SHARED_SETTINGS> {
  /** undefined: no --port (the gateway then speaks stdio). */
  port: number | undefined;
  headless: boolean;
  /** Why headless was chosen, for a startup banner. */
  headlessReason: string;
  /** --executable-path, or the browser --browser named, found. */
  executablePath: string | undefined;
  /** --browser, as given (the banner names it). */
  browserChannel: string | undefined;
  /** --idle-timeout, ms: undefined never closes the browser for want of calls. */
  idleTimeoutMs: number | undefined;
  /** Extra flags for a launched browser (--browser-arg, --profile-dir-name's), already checked. */
  browserArgs: string[];
  /** --sandbox (true) / --no-sandbox (false); undefined: Chromium's sandbox unless running as root. */
  sandbox: boolean | undefined;
  cdpEndpoint: string | undefined;
  userDataDir: string | undefined;
  /** null: pages follow the window's size. */
  viewport: { width: number; height: number } | null;
  caps: Capability[];
  /** Host header values accepted besides the loopback names. */
  allowedHosts: string[];
  /** Web origins whose pages may call the HTTP API. */
  corsOrigins: string[];
}

/** --max-connections-per-address and --request-timeout, as the HTTP server takes them: what one slow or greedy client may hold. */
export function connectionLimitsOf(settings: Pick<SharedSettings, keyof ConnectionLimits>): ConnectionLimits {
  return { maxConnectionsPerAddress: settings.maxConnectionsPerAddress, requestTimeoutMs: settings.requestTimeoutMs };
}

/** Why two launch-only settings cannot apply to a browser reached with --cdp-endpoint: the daemon's and the gateway's words. */
export const CDP_REFUSALS = {
  browser: '--browser chooses the browser browsermcp launches; with --cdp-endpoint your browser is already running. Drop --browser.',
  idleTimeout: '--idle-timeout closes a browser browsermcp launched; a browser reached with --cdp-endpoint is yours and stays open. Drop --idle-timeout.',
  launchFlags: (flags: readonly string[]) =>
    `${flags.join(', ')} shape a browser browsermcp launches; with --cdp-endpoint, start your browser with those flags instead.`,
} as const;

/** How browsermcp starts its browser: a browser reached with --cdp-endpoint was started with its own (--browser and --idle-timeout say why in words of their own). */
const LAUNCH_ONLY = ['headless', 'executablePath', 'profileDirName', 'browserArg', 'sandbox'] as const;

/** Reads and checks the shared settings; `env` is asked only whether a display exists. */
export function readSharedSettings(values: SettingValues, env: NodeJS.ProcessEnv = process.env): SharedSettings {
  const table = readTable(values, SHARED_SETTINGS);
  const badId = table.extensionIds.find((id) => !EXTENSION_ID_PATTERN.test(id));
  if (badId !== undefined) throw new ConfigError(`--extension-id: "${badId}" is not an extension id (32 letters a to p, as chrome://extensions shows it).`);
  const port = values.int('port');

  const viewportText = values.str('viewportSize') ?? DEFAULT_VIEWPORT_SIZE;
  let viewport: SharedSettings['viewport'] = null;
  if (viewportText !== 'none') {
    const m = /^(\d{2,5})[x×,](\d{2,5})$/i.exec(viewportText);
    if (!m) throw new ConfigError(`--viewport-size must look like 1280x720, got "${viewportText}".`);
    viewport = { width: Number(m[1]), height: Number(m[2]) };
  }

  const caps = values.list('caps');
  for (const c of caps) {
    if (!optionalCapabilities.includes(c as Capability)) {
      throw new ConfigError(`--caps: unknown capability "${c}". Choose from: ${optionalCapabilities.join(', ')}.`);
    }
  }

  const cdpEndpoint = values.str('cdpEndpoint');
  if (cdpEndpoint && !/^(https?|wss?):\/\/[^\s]+$/i.test(cdpEndpoint)) {
    throw new ConfigError(`--cdp-endpoint must be an http(s):// or ws(s):// URL such as http://127.0.0.1:9222, got "${cdpEndpoint}".`);
  }

  if (cdpEndpoint) {
    const launchOnly = LAUNCH_ONLY.filter((key) => values.given(key));
    if (launchOnly.length) throw new ConfigError(CDP_REFUSALS.launchFlags(launchOnly.map((key) => values.flag(key))));
  }
  const browserArgs = values.many('browserArg');
  const refusedArg = refusedBrowserArg(browserArgs);
  if (refusedArg) throw new ConfigError(`--browser-arg: ${refusedArg}`);
  const userDataDir = values.str('userDataDir');
  const profileDirName = values.str('profileDirName');
  if (profileDirName !== undefined) {
    if (!userDataDir)
      throw new ConfigError(
        '--profile-dir-name picks a profile inside --user-data-dir: add --user-data-dir <dir> (a fresh temporary profile has only its own).',
      );
    if (/[\\/]/.test(profileDirName) || profileDirName === '.' || profileDirName === '..') {
      throw new ConfigError(`--profile-dir-name must be a directory name inside --user-data-dir, such as "Profile 1", got "${profileDirName}".`);
    }
    browserArgs.push(`--profile-directory=${profileDirName}`);
  }
  // --sandbox and --no-sandbox set one attribute (commander's pair): true, false, or undefined when neither is given.
  const sandbox = values.given('sandbox') ? values.bool('sandbox') : undefined;

  const hasDisplay = process.platform !== 'linux' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  const headlessAsked = values.bool('headless');
  const headless = headlessAsked || !hasDisplay;

  const browserChannel = values.str('browser');
  let executablePath = values.str('executablePath');
  if (browserChannel !== undefined) {
    if (executablePath !== undefined) throw new ConfigError('--browser finds a browser and --executable-path names one: pass one of them.');
    if (cdpEndpoint) throw new ConfigError(CDP_REFUSALS.browser);
    const found = findChannel(browserChannel, { env });
    if ('problem' in found) throw new ConfigError(found.problem);
    executablePath = found.path;
  }
  // @playwright/mcp's default: a headless browser nobody uses goes after an hour, a visible one stays.
  const idleGiven = values.int('idleTimeout');
  if (idleGiven !== undefined && cdpEndpoint) {
    throw new ConfigError(CDP_REFUSALS.idleTimeout);
  }
  const idleTimeoutMs = idleGiven !== undefined ? idleGiven || undefined : headless && !cdpEndpoint ? DEFAULT_IDLE_TIMEOUT_MS : undefined;
  const headlessReason = headlessAsked
    ? 'headless (--headless)'
    : hasDisplay
      ? 'headed (a display is available; --headless to hide it)'
      : 'headless (no display found)';

  return {
    ...table,
    port,
    headless,
    headlessReason,
    executablePath,
    browserChannel,
    idleTimeoutMs,
    browserArgs,
    sandbox,
    cdpEndpoint,
    userDataDir,
    viewport,
    caps: caps as Capability[],
    allowedHosts: values.list('allowedHosts').map((h) => h.toLowerCase()),
    corsOrigins: values.origins('corsOrigins'),
  };
}
