import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { Command, type Option } from 'commander';
import {
  applyConfigFile,
  ConfigError,
  EXTENSION_ID,
  EXTENSION_ID_PATTERN,
  deviceNames,
  isLoopbackHost,
  readSharedSettings,
  readToolFlags,
  repeatableOption,
  settingOption,
  SettingValues,
  sharedOptions,
  toolOptions,
  type PageSetupOptions,
  type SharedSettings,
} from '@browsermcp/daemon';
import { DEFAULT_DAEMON_PORT } from '@browsermcp/protocol';
import type { CodegenLanguage, ConsoleLevel } from '@browsermcp/tools';
import { VERSION } from './version.js';

export { ConfigError };

/** The shared settings (the daemon reads the same ones, the same way) and the gateway's own. */
export interface GatewayConfig extends SharedSettings {
  /** Drive the user's browser through the extension. */
  extension: boolean;
  /** A remote daemon's proxy endpoint, its token and the browser to use there. */
  /** The remote daemon's proxy endpoints, in failover order (empty: the embedded daemon). */
  daemonUrls: string[];
  daemonToken: string;
  daemonBrowser: string | undefined;
  daemonPort: number;
  /** --cdp-header: sent with every request to the CDP endpoint. */
  cdpHeaders: Record<string, string>;
  /** --cdp-timeout, ms; 0 waits as long as it takes. */
  cdpTimeoutMs: number;
  allowedOrigins: string[];
  blockedOrigins: string[];
  /** Input files from anywhere, and file: URLs (--allow-unrestricted-file-access). */
  allowUnrestrictedFileAccess: boolean;
  /** Keys HTTP clients may use; empty means one is generated at startup (unless noAuth). */
  apiKeys: string[];
  noAuth: boolean;
  rateLimit: number | undefined;
  /** --trust-proxy, read: undefined when not behind a proxy. */
  trustProxy: boolean | number | string[] | undefined;
  /** The keys came from the user (--api-key, its variable, --api-key-file): the banner does not print them. */
  apiKeysGiven: boolean;
  sessionIdleMs: number;
  /** --save-session: each session's tool calls and answers recorded under the output directory. */
  saveSession: boolean;
  /** --progress-interval, ms: how often a call that waits tells a client that asked for progress. */
  progressIntervalMs: number;
  /** --keep-browser-state, in ms: sessions of one key share a browser state that outlives each of them this long. */
  keepBrowserStateMs: number | undefined;
  snapshotMaxChars: number;
  snapshotMode: 'full' | 'none';
  snapshotBoxes: boolean;
  actionTimeoutMs: number;
  settleTimeoutMs: number;
  /** --no-webmcp: false. */
  webmcp: boolean;
  navigationTimeoutMs: number;
  consoleLevel: ConsoleLevel;
  imageResponses: 'allow' | 'omit' | 'only';
  testIdAttribute: string;
  /** --extension-id: the extension ids that may connect (the development build's by default). */
  extensionIds: string[];
  /** --max-tabs: most tabs one session may hold. */
  maxTabs: number;
  /** --max-log-entries: console messages and requests kept per tab, each. */
  maxLogEntries: number;
  /** --console-lines-in-answer: console messages an action's answer carries (the rest counted). */
  consoleLinesInAnswer: number;
  /** --max-tab-memory: MB a tab's page may hold before it is closed (with a note to its agent). */
  maxTabMemoryMb: number;
  /** --max-sessions / --max-sessions-per-key: open MCP sessions in all and per API key. */
  maxSessions: number;
  maxSessionsPerKey: number;
  /** --codegen: the language of the Playwright code in action answers, or none. */
  codegen: CodegenLanguage | 'none';
  /** --secrets: name → value. */
  secrets: Record<string, string> | undefined;
  /** How each page and context of a launched (or CDP) browser is set up. */
  pageSetup: PageSetupOptions;
  acceptInsecureCerts: boolean;
  proxy: { server: string; bypass?: string | undefined } | undefined;
}

/** Every flag, its environment variable (BROWSERMCP_<FLAG>) and its default, in one table for --help. */
function options(): Option[] {
  const opt = settingOption;
  const s = sharedOptions({
    port: { description: 'serve MCP over HTTP on this port (Streamable HTTP at /mcp, legacy SSE at /sse) (default: none: stdio)' },
    corsOrigins: { description: 'web origins allowed to call the gateway (for @browsermcp/client), comma-separated (default: none)' },
    outputDir: { description: "where screenshots, PDFs and GIFs are saved, in every mode: each API key in a private directory of its own, which it may upload from too" },
    fileRoots: {
      description: "more directories uploads and storage states may be read from, comma-separated, besides the client's MCP roots (stdio without roots: the working directory) (default: none)",
    },
    gracePeriod: { description: 'how long a session outlives a dropped legacy SSE stream (and, with --extension, a disconnected browser)' },
  });
  return [
    s.port,
    s.host,
    s.headless,
    s.executablePath,
    s.browser,
    s.idleTimeout,
    s.browserArg,
    s.sandbox,
    s.noSandbox,
    s.cdpEndpoint,
    repeatableOption('--cdp-header <header>', 'with --cdp-endpoint: a header sent with every request to it, "Name: value"; repeat for more (default: none)'),
    opt('--cdp-timeout <ms>', 'with --cdp-endpoint: how long connecting may take; 0 waits as long as it takes').default('30000'),
    s.userDataDir,
    s.profileDirName,
    opt('--isolated', 'keep the profile in memory (the default unless --user-data-dir is given)'),
    s.viewportSize,
    s.caps,
    s.sharedBrowserContext,
    s.allowedHosts,
    ...toolOptions(),
    s.config,
    s.outputDir,
    s.outputMaxSize,
    s.filePaths,
    s.fileRoots,
    opt('--allow-unrestricted-file-access', 'input files may come from anywhere on this machine, and pages may open file:// URLs (default: only the roots above, file:// blocked)'),
    opt('--extension', 'drive your own browser through the browsermcp extension instead of launching one (default: launch one)'),
    opt('--daemon-port <port>', 'with --extension: port of the endpoint the extension connects to (ws://127.0.0.1:<port>/extension)').default(String(DEFAULT_DAEMON_PORT)),
    opt('--extension-id <ids>', `with --extension: the extension ids that may connect, comma-separated, e.g. the Chrome Web Store's (default: ${EXTENSION_ID}, the development build)`),
    opt('--daemon-url <urls>', 'use a remote daemon (ws://host:port/mcp; wss:// off loopback) instead of the embedded one; comma-separated daemons of a cluster are tried in turn when one drops (default: the embedded one)'),
    opt('--daemon-token <token>', 'access token for --daemon-url (browsermcp-daemon token --user U --secret-file F) (default: none)'),
    opt('--daemon-browser <id>', 'with --daemon-url: the browser to drive (default: the first connected)'),
    opt('--api-key <keys>', 'bearer key(s) HTTP clients must send, comma-separated or repeated; a session only works with the key that opened it (default: a random key, printed at startup)')
      // Repeated, every key counts (commander would keep only the last one, silently).
      .argParser((value: string, previous: string | undefined) => (previous ? `${previous},${value}` : value)),
    opt('--no-auth', 'serve HTTP without a key, only allowed on a loopback host (default: a key is required)'),
    s.corsOrigins,
    s.maxConnectionsPerAddress,
    s.requestTimeout,
    s.pairingFile,
    opt('--trust-proxy <value>', 'behind a reverse proxy: whose X-Forwarded-For gives the client address (for --rate-limit and logs): true (any), a hop count, or proxy addresses/CIDRs, comma-separated (default: none)'),
    opt('--api-key-file <file>', 'file with the bearer key(s), one per line ("#" comments); like --api-key, and never printed (default: none)'),
    opt('--rate-limit <n>', 'requests per minute per key (default: 100 on a non-loopback host, off on loopback)'),
    s.gracePeriod,
    opt('--session-idle-timeout <seconds>', 'close sessions (and their tabs) whose client sent nothing for this long').default('1800'),
    opt('--progress-interval <seconds>', 'how often a call that waits (a slow page, the person\'s approval, a starting browser) sends a progress notification, to clients that ask for them').default('10'),
    opt('--save-session', "record each session's tool calls and answers (Markdown) in session-<time>-<session>/session.md under the caller's output directory, written by the gateway (default: off)"),
    opt('--keep-browser-state <minutes>', "sessions opened with the same API key share one browser state (cookies, storage, tabs) that outlives each session this long, for clients that open a session per call (default: none: each session starts fresh)"),
    s.commandTimeout,
    opt('--user-agent <ua>', "the user agent pages see (default: the browser's own)"),
    opt('--device <name>', 'emulate a device from puppeteer\'s list, e.g. "iPhone 15" or "Pixel 5": its viewport, touch and user agent (default: none)'),
    opt('--mobile', 'emulate a generic phone (Pixel 5); not with --device (default: off)'),
    opt('--init-script <files>', 'JavaScript files run in every page before its own scripts, comma-separated (default: none)'),
    opt('--grant-permissions <list>', 'permissions granted to every site, comma-separated, e.g. geolocation,clipboard-read (default: none)'),
    opt('--block-service-workers', 'pages cannot register service workers (default: off)'),
    opt('--storage-state <file>', "Playwright storage state (JSON: cookies and localStorage) each session's browser context starts with (default: none)"),
    opt('--secrets <file>', "dotenv file of secrets: a secret's name typed or filled is replaced by its value in the page, and values never appear in answers (default: none)"),
    opt('--ignore-https-errors', 'open pages whose HTTPS certificate is not valid (default: off)'),
    opt('--proxy-server <url>', "send the browser's traffic through this proxy, e.g. http://proxy:3128 or socks5://proxy:1080 (default: none)"),
    opt('--proxy-bypass <list>', 'hosts that skip the proxy, comma-separated, e.g. .internal,localhost (default: none)'),
    opt('--max-sessions <n>', 'most MCP sessions open at once over HTTP; more are refused (503) until some close').default('200'),
    opt('--max-sessions-per-key <n>', 'most MCP sessions one API key may have open; more are refused (429)').default('50'),
    s.logLevel,
    // @playwright/mcp's flags that name Playwright objects: refused with what to use instead (PLAYWRIGHT_FLAGS_REFUSED).
    opt('--endpoint <url>', 'refused: a Playwright browser server; use --cdp-endpoint with a Chrome started with --remote-debugging-port (default: none)'),
    opt('--init-page <files>', 'refused: TypeScript run on a Playwright page object; use --init-script (JavaScript run in every page) (default: none)'),
  ];
}

/** @playwright/mcp's flags that have no meaning here, with why and what to use instead. */
const PLAYWRIGHT_FLAGS_REFUSED: Record<string, string> = {
  endpoint: "--endpoint connects to a Playwright browser server, which browsermcp does not drive (it speaks the Chrome DevTools Protocol). Start Chrome with --remote-debugging-port=9222 and pass --cdp-endpoint http://127.0.0.1:9222 instead.",
  initPage: '--init-page runs TypeScript against a Playwright page object, which browsermcp does not have. Put the page setup in a JavaScript file and pass it with --init-script: it runs in every page before its own scripts.',
};

export function buildProgram(): Command {
  const program = new Command('browsermcp-gateway')
    .description('MCP server that lets AI agents drive real Chrome tabs, many clients at once, each in its own tabs.')
    .version(VERSION, '-V, --version')
    .helpOption('-h, --help', 'show this help')
    .showHelpAfterError('(run browsermcp-gateway --help for every option)')
    .allowExcessArguments(false);
  for (const o of options()) program.addOption(o);
  return program;
}

/** A file a flag names, as text; a ConfigError naming the flag and why when it cannot be read. */
function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`--${flag} ${path}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
  }
}

/** Flags that shape the browser itself (its pages and contexts): they apply only to a browser browsermcp drives locally. */
const BROWSER_FLAGS = [
  'browser', 'idleTimeout', 'profileDirName', 'browserArg', 'sandbox', 'userAgent', 'device', 'mobile', 'initScript', 'grantPermissions', 'blockServiceWorkers', 'ignoreHttpsErrors', 'proxyServer', 'proxyBypass',
  'storageState',
];

/** Defaults < config file < environment < command line; then every value is checked once, here. */
export function resolveConfig(program: Command, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  applyConfigFile(program);
  const v = new SettingValues(program);
  const str = (k: string) => v.str(k);
  const bool = (k: string) => v.bool(k);
  const list = (k: string) => v.list(k);
  const int = (k: string, min: number, max: number) => v.int(k, min, max);
  const given = (k: string) => v.given(k);

  const refused = Object.keys(PLAYWRIGHT_FLAGS_REFUSED).find(given);
  if (refused !== undefined) throw new ConfigError(PLAYWRIGHT_FLAGS_REFUSED[refused]!);
  // Flags of a mode that does not apply are refused before any of them is read (--browser would look for a browser).
  const extension = bool('extension');
  if (extension) {
    const launchOnly = ['cdpEndpoint', 'userDataDir', 'executablePath', 'headless', 'isolated', 'viewportSize', 'sharedBrowserContext', ...BROWSER_FLAGS].filter(given);
    if (launchOnly.length) {
      throw new ConfigError(
        `--extension drives your own browser, so ${launchOnly.map((k) => v.flag(k)).join(', ')} cannot apply (they shape a browser browsermcp launches). Drop ${launchOnly.length > 1 ? 'them' : 'it'}, or drop --extension.`,
      );
    }
  }
  if (str('daemonUrl') !== undefined) {
    // Files and secrets are the daemon's to hold: this gateway's paths and values mean nothing there. The tool flags
    // travel with each session, applied by the daemon within its own settings.
    const browserFlags = [...BROWSER_FLAGS, 'secrets', 'fileRoots', 'allowUnrestrictedFileAccess', 'outputMaxSize', 'filePaths'].filter(given);
    if (browserFlags.length) {
      throw new ConfigError(`--daemon-url runs the browser on the daemon, so ${browserFlags.map((k) => v.flag(k)).join(', ')} cannot apply here. Drop ${browserFlags.length > 1 ? 'them' : 'it'}.`);
    }
  }
  const shared = readSharedSettings(v, env);
  const { host, cdpEndpoint, userDataDir } = shared;
  const loopback = isLoopbackHost(host);

  const cdpHeaders = cdpHeadersFrom(v.many('cdpHeader'));
  for (const key of ['cdpHeader', 'cdpTimeout']) {
    if (!cdpEndpoint && given(key)) {
      throw new ConfigError(`${v.flag(key)} applies to a browser reached with --cdp-endpoint; add --cdp-endpoint or drop ${v.flag(key)}.`);
    }
  }
  if (bool('isolated') && userDataDir) throw new ConfigError('--isolated and --user-data-dir contradict each other: pick one.');

  // --no-auth sets auth=false in commander.
  const noAuth = v.raw('auth') === false || v.raw('auth') === 'false';
  if (noAuth && shared.port !== undefined && !loopback) {
    throw new ConfigError(`--no-auth is only allowed on a loopback host; ${host} is reachable from other machines. Use --api-key.`);
  }

  const apiKeys = [...list('apiKey'), ...keysFrom(str('apiKeyFile'))];
  if (noAuth && apiKeys.length) throw new ConfigError('--no-auth and an API key contradict each other: keep one.');

  const tools = readToolFlags(v, shared.commandTimeoutMs);
  // The browser's own settings: they shape the browser we launch, so a browser already running cannot take some.
  const proxyServer = str('proxyServer');
  if (proxyServer && !/^(https?|socks[45]?):\/\/[^/\s]+\/?$/i.test(proxyServer)) {
    throw new ConfigError(`--proxy-server must be a proxy URL such as http://proxy:3128 or socks5://proxy:1080, got "${proxyServer}".`);
  }
  if (str('proxyBypass') && !proxyServer) throw new ConfigError('--proxy-bypass needs --proxy-server.');
  if (cdpEndpoint && (proxyServer || bool('ignoreHttpsErrors'))) {
    throw new ConfigError('--proxy-server and --ignore-https-errors are set when browsermcp launches the browser; with --cdp-endpoint, start your browser with them instead.');
  }
  const launchFlags = ['browserArg', 'sandbox'].filter(given);
  if (cdpEndpoint && launchFlags.length) {
    throw new ConfigError(`${launchFlags.map((k) => v.flag(k)).join(', ')} shape a browser browsermcp launches; with --cdp-endpoint, start your browser with those flags instead.`);
  }
  const pageSetup = {
    ...pageSetupFrom(str('userAgent'), str('device'), bool('mobile'), list('initScript'), list('grantPermissions'), bool('blockServiceWorkers')),
    ...storageStateFrom(str('storageState')),
  };
  if (pageSetup.storageState && (shared.sharedBrowserContext || userDataDir)) {
    throw new ConfigError('--storage-state starts each session in its own fresh context: it cannot apply with --shared-browser-context or --user-data-dir.');
  }
  const daemonUrls = (str('daemonUrl') ?? '').split(',').map((url) => url.trim()).filter((url) => url !== '');
  if (daemonUrls.length) {
    for (const daemonUrl of daemonUrls) {
      let parsed: URL;
      try {
        parsed = new URL(daemonUrl);
      } catch {
        throw new ConfigError(`--daemon-url must be a ws:// or wss:// URL such as ws://127.0.0.1:8765/mcp (comma-separated for several), got "${daemonUrl}".`);
      }
      if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') throw new ConfigError(`--daemon-url must be a ws:// or wss:// URL, got "${daemonUrl}".`);
      if (parsed.protocol === 'ws:' && !isLoopbackHost(parsed.hostname)) {
        throw new ConfigError('--daemon-url must use wss:// for a daemon on another machine: the token would travel in clear.');
      }
    }
    if (extension || cdpEndpoint || userDataDir) throw new ConfigError('--daemon-url runs the browser on the daemon: drop --extension, --cdp-endpoint and --user-data-dir.');
  }
  const keepText = str('keepBrowserState');
  let keepBrowserStateMs: number | undefined;
  if (keepText !== undefined) {
    const minutes = Number(keepText);
    if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 7 * 24 * 60) {
      throw new ConfigError(`--keep-browser-state must be a number of minutes above 0 (at most a week), got "${keepText}".`);
    }
    if (shared.sharedBrowserContext || userDataDir) {
      throw new ConfigError('--keep-browser-state keeps one state per key; with --shared-browser-context or --user-data-dir every session already shares one. Drop one of them.');
    }
    keepBrowserStateMs = Math.round(minutes * 60_000);
  }
  // A kept state lives in the browser: an idle browser may not close before the states it holds would.
  let idleTimeoutMs = extension || daemonUrls.length ? undefined : shared.idleTimeoutMs;
  if (idleTimeoutMs !== undefined && keepBrowserStateMs !== undefined && idleTimeoutMs < keepBrowserStateMs) {
    if (given('idleTimeout')) {
      throw new ConfigError(`--idle-timeout (${idleTimeoutMs} ms) would close the browser, and the states it keeps, before --keep-browser-state (${keepText} minutes) is up. Raise --idle-timeout, or pass 0 to keep the browser open.`);
    }
    idleTimeoutMs = keepBrowserStateMs;
  }
  // Nor, by default, before the sessions it serves time out: sessions kept for ever (0) keep it open too.
  const sessionIdleMs = int('sessionIdleTimeout', 0, 604_800)! * 1000;
  if (idleTimeoutMs !== undefined && !given('idleTimeout')) idleTimeoutMs = sessionIdleMs === 0 ? undefined : Math.max(idleTimeoutMs, sessionIdleMs);
  return {
    ...shared,
    idleTimeoutMs,
    commandTimeoutMs: tools.commandTimeoutMs,
    extension,
    daemonUrls,
    daemonToken: str('daemonToken') ?? '',
    daemonBrowser: str('daemonBrowser'),
    daemonPort: int('daemonPort', 0, 65535)!,
    extensionIds: extensionIdsFrom(list('extensionId'), extension),
    cdpHeaders,
    cdpTimeoutMs: int('cdpTimeout', 0, 3_600_000)!,
    ...tools.settings,
    allowUnrestrictedFileAccess: bool('allowUnrestrictedFileAccess'),
    apiKeys,
    apiKeysGiven: apiKeys.length > 0,
    trustProxy: trustProxyFrom(str('trustProxy')),
    noAuth,
    rateLimit: int('rateLimit', 1, 1_000_000) ?? (loopback ? undefined : 100),
    sessionIdleMs,
    progressIntervalMs: int('progressInterval', 1, 3600)! * 1000,
    saveSession: bool('saveSession'),
    keepBrowserStateMs,
    maxSessions: int('maxSessions', 1, 100_000)!,
    maxSessionsPerKey: int('maxSessionsPerKey', 1, 100_000)!,
    secrets: secretsFrom(str('secrets')),
    pageSetup,
    acceptInsecureCerts: bool('ignoreHttpsErrors'),
    proxy: proxyServer ? { server: proxyServer, bypass: str('proxyBypass') } : undefined,
  };
}

function pageSetupFrom(userAgent: string | undefined, device: string | undefined, mobile: boolean, initScripts: string[], permissions: string[], blockServiceWorkers: boolean): PageSetupOptions {
  if (device && mobile) throw new ConfigError('--mobile is a generic phone and --device a chosen one: pass one of them.');
  const names = deviceNames();
  if (device && !names.includes(device)) {
    const near = names.filter((n) => n.toLowerCase().includes(device.toLowerCase().split(' ')[0]!)).slice(0, 8);
    throw new ConfigError(`--device: unknown device "${device}"${near.length ? `. Close ones: ${near.join(', ')}` : ''}. Names are puppeteer's KnownDevices, e.g. "iPhone 15", "Pixel 5".`);
  }
  const sources = initScripts.map((file) => readFlagFile('init-script', file));
  return {
    ...(userAgent ? { userAgent } : {}),
    ...(device || mobile ? { device: device ?? 'Pixel 5' } : {}),
    ...(sources.length ? { initScripts: sources } : {}),
    ...(permissions.length ? { grantPermissions: permissions } : {}),
    ...(blockServiceWorkers ? { blockServiceWorkers } : {}),
  };
}

/** --cdp-header values ("Name: value", repeated; one from the environment) as a header map. */
function cdpHeadersFrom(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    const name = colon > 0 ? value.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new ConfigError(`--cdp-header must look like "Authorization: Bearer abc", got "${value}".`);
    headers[name] = value.slice(colon + 1).trim();
  }
  return headers;
}

function secretsFrom(file: string | undefined): Record<string, string> | undefined {
  if (!file) return undefined;
  const secrets = Object.fromEntries(Object.entries(parseEnv(readFlagFile('secrets', file))).flatMap(([name, value]) => (value === undefined ? [] : [[name, value]])));
  if (!Object.keys(secrets).length) throw new ConfigError(`--secrets ${file}: no NAME=value lines in it.`);
  return secrets;
}

function storageStateFrom(file: string | undefined): Pick<PageSetupOptions, 'storageState'> {
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError(`--storage-state ${file}: cannot read it as JSON (${why}).`);
  }
  const state = parsed as { cookies?: unknown; origins?: unknown };
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || (state.cookies !== undefined && !Array.isArray(state.cookies)) || (state.origins !== undefined && !Array.isArray(state.origins))) {
    throw new ConfigError(`--storage-state ${file}: must be Playwright's storage state, an object {cookies: [...], origins: [...]}.`);
  }
  return { storageState: parsed as NonNullable<PageSetupOptions['storageState']> };
}

/** --api-key-file: one key per line (or comma-separated), blank lines and "#" comments skipped. */
function keysFrom(file: string | undefined): string[] {
  if (!file) return [];
  const keys = readFlagFile('api-key-file', file)
    .split('\n')
    .map((line) => line.replace(/#.*/, ''))
    .flatMap((line) => line.split(','))
    .map((k) => k.trim())
    .filter(Boolean);
  if (!keys.length) throw new ConfigError(`--api-key-file ${file}: no key in it (one per line).`);
  const short = keys.find((k) => k.length < 16);
  if (short !== undefined) throw new ConfigError(`--api-key-file ${file}: a key of ${short.length} characters is too easy to guess; use 16 or more (e.g. openssl rand -base64 24).`);
  return keys;
}

/** --trust-proxy: "true"/"false", a hop count, or addresses and CIDRs (Fastify's trustProxy forms). */
function trustProxyFrom(text: string | undefined): boolean | number | string[] | undefined {
  if (text === undefined) return undefined;
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = entries.find((e) => !/^[0-9a-f.:]+(\/\d{1,3})?$/i.test(e) && !['loopback', 'linklocal', 'uniquelocal'].includes(e));
  if (!entries.length || bad !== undefined) {
    throw new ConfigError(`--trust-proxy must be true, a hop count, or proxy addresses/CIDRs such as 10.0.0.0/8,127.0.0.1, got "${bad ?? text}".`);
  }
  return entries;
}

/** --extension-id: ids as Chrome writes them (32 letters a-p), only with --extension. */
function extensionIdsFrom(ids: string[], extension: boolean): string[] {
  if (!ids.length) return [EXTENSION_ID];
  if (!extension) throw new ConfigError('--extension-id names the extension that drives your own browser: add --extension, or drop --extension-id.');
  const bad = ids.find((id) => !EXTENSION_ID_PATTERN.test(id));
  if (bad !== undefined) throw new ConfigError(`--extension-id: "${bad}" is not an extension id (32 letters a to p, as chrome://extensions shows it).`);
  return ids;
}
