import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { Command, Option } from 'commander';
import { deviceNames, isLoopbackHost, type PageSetupOptions } from '@browsermcp/daemon';
import { CODEGEN_LANGUAGES, CONSOLE_LEVELS, optionalCapabilities, type Capability, type CodegenLanguage, type ConsoleLevel } from '@browsermcp/tools';
import { VERSION } from './version.js';

export interface GatewayConfig {
  /** HTTP port; undefined = stdio. */
  port: number | undefined;
  host: string;
  /** Drive the user's browser through the extension. */
  extension: boolean;
  /** A remote daemon's proxy endpoint, its token and the browser to use there. */
  daemonUrl: string | undefined;
  daemonToken: string;
  daemonBrowser: string | undefined;
  daemonPort: number;
  headless: boolean;
  /** Why headless was chosen, for the startup banner. */
  headlessReason: string;
  executablePath: string | undefined;
  cdpEndpoint: string | undefined;
  /** --cdp-header: sent with every request to the CDP endpoint. */
  cdpHeaders: Record<string, string>;
  /** --cdp-timeout, ms; 0 waits as long as it takes. */
  cdpTimeoutMs: number;
  userDataDir: string | undefined;
  viewport: { width: number; height: number };
  caps: Capability[];
  sharedBrowserContext: boolean;
  allowedHosts: string[];
  allowedOrigins: string[];
  blockedOrigins: string[];
  outputDir: string;
  fileRoots: string[];
  /** Input files from anywhere, and file: URLs (--allow-unrestricted-file-access). */
  allowUnrestrictedFileAccess: boolean;
  /** Keys HTTP clients may use; empty means one is generated at startup (unless noAuth). */
  apiKeys: string[];
  noAuth: boolean;
  corsOrigins: string[];
  rateLimit: number | undefined;
  gracePeriodMs: number;
  sessionIdleMs: number;
  commandTimeoutMs: number;
  snapshotMaxChars: number;
  snapshotMode: 'full' | 'none';
  snapshotBoxes: boolean;
  actionTimeoutMs: number;
  navigationTimeoutMs: number;
  consoleLevel: ConsoleLevel;
  imageResponses: 'allow' | 'omit' | 'only';
  testIdAttribute: string;
  /** --max-tabs: most tabs one session may hold. */
  maxTabs: number;
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
  logLevel: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const list = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Every flag, its environment variable (BROWSERMCP_<FLAG>) and its default, in one table for --help. */
function options(): Option[] {
  const opt = (flags: string, description: string, env: string) => new Option(flags, description).env(`BROWSERMCP_${env}`);
  return [
    opt('--port <port>', 'serve MCP over HTTP on this port (Streamable HTTP at /mcp, legacy SSE at /sse); without it, stdio', 'PORT'),
    opt('--host <host>', 'address to bind', 'HOST').default('127.0.0.1'),
    opt('--headless', 'run the browser headless (default: headed when a display exists, else headless)', 'HEADLESS'),
    opt('--executable-path <path>', 'Chrome/Chromium to launch (default: CHROME_PATH, then auto-detected)', 'EXECUTABLE_PATH'),
    opt('--cdp-endpoint <url>', 'connect to a running browser (http://host:port or ws://…) instead of launching one', 'CDP_ENDPOINT'),
    opt('--cdp-header <header>', 'with --cdp-endpoint: a header sent with every request to it, "Name: value"; repeat for more', 'CDP_HEADER').argParser(
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    ),
    opt('--cdp-timeout <ms>', 'with --cdp-endpoint: how long connecting may take; 0 waits as long as it takes', 'CDP_TIMEOUT').default('30000'),
    opt('--user-data-dir <dir>', 'persistent browser profile (sessions share it, each owns its tabs)', 'USER_DATA_DIR'),
    opt('--isolated', 'keep the profile in memory (the default unless --user-data-dir is given)', 'ISOLATED'),
    opt('--viewport-size <WxH>', 'viewport of new pages', 'VIEWPORT_SIZE').default('1280x720'),
    opt('--caps <list>', `optional tool capabilities, comma-separated: ${optionalCapabilities.join(', ')} (default: none)`, 'CAPS'),
    opt('--shared-browser-context', 'all sessions share one browser context (cookies) instead of one each', 'SHARED_BROWSER_CONTEXT'),
    opt('--allowed-hosts <list>', 'Host header values accepted, comma-separated (default: localhost, 127.0.0.1, [::1] with the port)', 'ALLOWED_HOSTS'),
    opt('--allowed-origins <list>', 'only these origins may be opened in the browser, comma-separated (default: all)', 'ALLOWED_ORIGINS'),
    opt('--blocked-origins <list>', 'these origins may not be opened in the browser, comma-separated (default: none)', 'BLOCKED_ORIGINS'),
    opt('--config <file>', 'JSON file with any of these options (camelCase keys); flags and env override it', 'CONFIG'),
    opt('--output-dir <dir>', 'where screenshots, PDFs and GIFs are saved, in every mode (uploads are allowed from here too)', 'OUTPUT_DIR').default(join(tmpdir(), 'browsermcp-output')),
    opt('--file-roots <list>', "more directories uploads and storage states may be read from, comma-separated, besides the client's MCP roots (stdio without roots: the working directory) (default: none)", 'FILE_ROOTS'),
    opt('--allow-unrestricted-file-access', 'input files may come from anywhere on this machine, and pages may open file:// URLs (default: only the roots above, file:// blocked)', 'ALLOW_UNRESTRICTED_FILE_ACCESS'),
    opt('--extension', "drive your own browser through the browsermcp extension instead of launching one", 'EXTENSION'),
    opt('--daemon-port <port>', 'with --extension: port of the endpoint the extension connects to (ws://127.0.0.1:<port>/extension)', 'DAEMON_PORT').default('8765'),
    opt('--daemon-url <url>', 'use a remote daemon (ws://host:port/mcp; wss:// off loopback) instead of the embedded one', 'DAEMON_URL'),
    opt('--daemon-token <token>', 'access token for --daemon-url (browsermcp-daemon token --user U --secret-file F)', 'DAEMON_TOKEN'),
    opt('--daemon-browser <id>', 'with --daemon-url: the browser to drive (default: the first connected)', 'DAEMON_BROWSER'),
    opt('--api-key <keys>', 'bearer key(s) HTTP clients must send, comma-separated; a session only works with the key that opened it (default: a random key, printed at startup)', 'API_KEY'),
    opt('--no-auth', 'serve HTTP without a key (only allowed on a loopback host)', 'NO_AUTH'),
    opt('--cors-origins <list>', 'web origins allowed to call the gateway (for @browsermcp/client), comma-separated (default: none)', 'CORS_ORIGINS'),
    opt('--rate-limit <n>', 'requests per minute per key (default: 100 on a non-loopback host, off on loopback)', 'RATE_LIMIT'),
    opt('--grace-period <seconds>', 'how long a session outlives a dropped legacy SSE stream', 'GRACE_PERIOD').default('300'),
    opt('--session-idle-timeout <seconds>', 'close sessions (and their tabs) whose client sent nothing for this long', 'SESSION_IDLE_TIMEOUT').default('1800'),
    opt('--command-timeout <seconds>', 'longest a single tool call may take', 'COMMAND_TIMEOUT').default('90'),
    opt('--snapshot-max-chars <n>', 'cut snapshots longer than this at a node boundary', 'SNAPSHOT_MAX_CHARS').default('40000'),
    opt('--snapshot-mode <mode>', 'snapshots in action answers: full, or none', 'SNAPSHOT_MODE').default('full'),
    opt('--snapshot-boxes', "write each element's bounding box as [box=x,y,width,height] in snapshots", 'SNAPSHOT_BOXES'),
    opt('--timeout-action <ms>', 'how long an action waits for its element to be ready', 'TIMEOUT_ACTION').default('5000'),
    opt('--timeout-navigation <ms>', 'how long a navigation may take', 'TIMEOUT_NAVIGATION').default('60000'),
    opt('--console-level <level>', `console messages in answers, this level and more severe: ${CONSOLE_LEVELS.join(', ')}`, 'CONSOLE_LEVEL').default('info'),
    opt('--image-responses <mode>', 'images in answers: allow, omit (for clients that take no images), or only (without the text)', 'IMAGE_RESPONSES').default('allow'),
    opt('--user-agent <ua>', "the user agent pages see (default: the browser's own)", 'USER_AGENT'),
    opt('--device <name>', 'emulate a device from puppeteer\'s list, e.g. "iPhone 15" or "Pixel 5": its viewport, touch and user agent', 'DEVICE'),
    opt('--mobile', 'emulate a generic phone (Pixel 5); not with --device', 'MOBILE'),
    opt('--init-script <files>', 'JavaScript files run in every page before its own scripts, comma-separated', 'INIT_SCRIPT'),
    opt('--grant-permissions <list>', 'permissions granted to every site, comma-separated, e.g. geolocation,clipboard-read', 'GRANT_PERMISSIONS'),
    opt('--block-service-workers', 'pages cannot register service workers', 'BLOCK_SERVICE_WORKERS'),
    opt('--storage-state <file>', "Playwright storage state (JSON: cookies and localStorage) each session's browser context starts with", 'STORAGE_STATE'),
    opt('--secrets <file>', 'dotenv file of secrets: a secret\'s name typed or filled is replaced by its value in the page, and values never appear in answers', 'SECRETS'),
    opt('--ignore-https-errors', 'open pages whose HTTPS certificate is not valid', 'IGNORE_HTTPS_ERRORS'),
    opt('--proxy-server <url>', 'send the browser\'s traffic through this proxy, e.g. http://proxy:3128 or socks5://proxy:1080', 'PROXY_SERVER'),
    opt('--proxy-bypass <list>', 'hosts that skip the proxy, comma-separated, e.g. .internal,localhost', 'PROXY_BYPASS'),
    opt('--max-sessions <n>', 'most MCP sessions open at once over HTTP; more are refused (503) until some close', 'MAX_SESSIONS').default('200'),
    opt('--max-sessions-per-key <n>', 'most MCP sessions one API key may have open; more are refused (429)', 'MAX_SESSIONS_PER_KEY').default('50'),
    opt('--max-tabs <n>', 'most tabs one session may hold; popups a page opens past it are closed and reported', 'MAX_TABS').default('50'),
    opt('--codegen <lang>', `the Playwright code each action's answer carries, to replay it in a test: ${CODEGEN_LANGUAGES.join(', ')} or none ("playwright" means typescript)`, 'CODEGEN').default('typescript'),
    opt('--test-id-attribute <name>', 'the attribute generated locators read as a test id', 'TEST_ID_ATTRIBUTE').default('data-testid'),
    opt('--log-level <level>', `log level: ${LOG_LEVELS.join(', ')}`, 'LOG_LEVEL').default('info'),
  ];
}

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

type Raw = Record<string, unknown>;

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
  'userAgent', 'device', 'mobile', 'initScript', 'grantPermissions', 'blockServiceWorkers', 'ignoreHttpsErrors', 'proxyServer', 'proxyBypass',
  'storageState',
];

function readConfigFile(path: string): Raw {
  const text = readFlagFile('config', path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`--config ${path}: not valid JSON (${(err as Error).message}).`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`--config ${path}: must be a JSON object of options, e.g. {"port": 3456}.`);
  }
  return parsed as Raw;
}

/** Defaults < config file < environment < command line; then every value is checked once, here. */
export function resolveConfig(program: Command, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const raw = program.opts<Raw>();
  if (typeof raw.config === 'string') {
    const file = readConfigFile(raw.config);
    const known = new Set(program.options.map((o) => o.attributeName()));
    for (const [key, value] of Object.entries(file)) {
      if (!known.has(key)) throw new ConfigError(`--config: unknown option "${key}". Keys are the flags in camelCase, e.g. "viewportSize".`);
      const source = program.getOptionValueSource(key);
      if (source === undefined || source === 'default') {
        // A header may hold commas: its list stays a list.
        const flagValue = Array.isArray(value) && key !== 'cdpHeader' ? value.join(',') : value;
        program.setOptionValueWithSource(key, flagValue, 'config');
      }
    }
  }
  const o = program.opts<Raw>();
  const str = (k: string) => (o[k] === undefined || o[k] === null || o[k] === '' ? undefined : String(o[k]));
  const bool = (k: string) => o[k] === true || o[k] === 'true' || o[k] === '1';
  const int = (k: string, flag: string, min: number, max: number): number | undefined => {
    const v = str(k);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`--${flag} must be a whole number from ${min} to ${max}, got "${v}".`);
    return n;
  };

  const oneOf = <T extends string>(k: string, flag: string, values: readonly T[]): T => {
    const v = str(k)!;
    if (!(values as readonly string[]).includes(v)) throw new ConfigError(`--${flag} must be one of ${values.join(', ')}, got "${v}".`);
    return v as T;
  };

  const port = int('port', 'port', 0, 65535);
  const host = str('host') ?? '127.0.0.1';
  const loopback = isLoopbackHost(host);

  const viewportText = str('viewportSize') ?? '1280x720';
  const vm = /^(\d{2,5})[x×,](\d{2,5})$/i.exec(viewportText);
  if (!vm) throw new ConfigError(`--viewport-size must look like 1280x720, got "${viewportText}".`);
  const viewport = { width: Number(vm[1]), height: Number(vm[2]) };

  const caps = list(str('caps') ?? '');
  for (const c of caps) {
    if (!optionalCapabilities.includes(c as Capability)) {
      throw new ConfigError(`--caps: unknown capability "${c}". Choose from: ${optionalCapabilities.join(', ')}.`);
    }
  }

  const cdpEndpoint = str('cdpEndpoint');
  if (cdpEndpoint && !/^(https?|wss?):\/\/[^\s]+$/i.test(cdpEndpoint)) {
    throw new ConfigError(`--cdp-endpoint must be an http(s):// or ws(s):// URL, got "${cdpEndpoint}".`);
  }
  // Set on purpose (flag, environment or config file), not left at its default: a flag that cannot apply stops here.
  const given = (key: string) => !['default', undefined].includes(program.getOptionValueSource(key));
  const cdpHeaders = cdpHeadersFrom(o.cdpHeader);
  for (const key of ['cdpHeader', 'cdpTimeout']) {
    if (!cdpEndpoint && given(key)) {
      throw new ConfigError(`${flagName(key)} applies to a browser reached with --cdp-endpoint; add --cdp-endpoint or drop ${flagName(key)}.`);
    }
  }
  const userDataDir = str('userDataDir');
  if (bool('isolated') && userDataDir) throw new ConfigError('--isolated and --user-data-dir contradict each other: pick one.');

  // --no-auth sets auth=false in commander.
  const noAuth = o.auth === false || o.auth === 'false';
  if (noAuth && port !== undefined && !loopback) {
    throw new ConfigError(`--no-auth is only allowed on a loopback host; ${host} is reachable from other machines. Use --api-key.`);
  }
  const logLevel = str('logLevel') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}".`);

  const origins = (k: string, flag: string) =>
    list(str(k) ?? '').map((v) => {
      try {
        return new URL(v).origin.toLowerCase();
      } catch {
        throw new ConfigError(`--${flag}: "${v}" is not an origin such as https://example.com.`);
      }
    });

  const hasDisplay = process.platform !== 'linux' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  const headless = bool('headless') || !hasDisplay;
  const headlessReason = bool('headless') ? 'headless (--headless)' : hasDisplay ? 'headed (a display is available; --headless to hide it)' : 'headless (no display found)';


  const extension = bool('extension');
  if (extension) {
    const launchOnly = ['cdpEndpoint', 'userDataDir', 'executablePath', 'headless', 'isolated', 'viewportSize', 'sharedBrowserContext', ...BROWSER_FLAGS].filter(given);
    if (launchOnly.length) {
      throw new ConfigError(
        `--extension drives your own browser, so ${launchOnly.map(flagName).join(', ')} cannot apply (they shape a browser browsermcp launches). Drop ${launchOnly.length > 1 ? 'them' : 'it'}, or drop --extension.`,
      );
    }
  }
  const navigationMs = int('timeoutNavigation', 'timeout-navigation', 1, 600_000)!;
  const commandMs = int('commandTimeout', 'command-timeout', 1, 3600)! * 1000;
  if (navigationMs >= commandMs) {
    throw new ConfigError(`--timeout-navigation (${navigationMs} ms) must be shorter than --command-timeout (${commandMs / 1000} s), or a slow page would end the whole call first. Raise --command-timeout.`);
  }
  // The browser's own settings: they shape the browser we launch, so a browser already running cannot take some.
  const proxyServer = str('proxyServer');
  if (proxyServer && !/^(https?|socks[45]?):\/\/[^/\s]+\/?$/i.test(proxyServer)) {
    throw new ConfigError(`--proxy-server must be a proxy URL such as http://proxy:3128 or socks5://proxy:1080, got "${proxyServer}".`);
  }
  if (str('proxyBypass') && !proxyServer) throw new ConfigError('--proxy-bypass needs --proxy-server.');
  if (cdpEndpoint && (proxyServer || bool('ignoreHttpsErrors'))) {
    throw new ConfigError('--proxy-server and --ignore-https-errors are set when browsermcp launches the browser; with --cdp-endpoint, start your browser with them instead.');
  }
  const pageSetup = {
    ...pageSetupFrom(str('userAgent'), str('device'), bool('mobile'), list(str('initScript') ?? ''), list(str('grantPermissions') ?? ''), bool('blockServiceWorkers')),
    ...storageStateFrom(str('storageState')),
  };
  if (pageSetup.storageState && (bool('sharedBrowserContext') || userDataDir)) {
    throw new ConfigError('--storage-state starts each session in its own fresh context: it cannot apply with --shared-browser-context or --user-data-dir.');
  }
  const daemonUrl = str('daemonUrl');
  if (daemonUrl) {
    let parsed: URL;
    try {
      parsed = new URL(daemonUrl);
    } catch {
      throw new ConfigError(`--daemon-url must be a ws:// or wss:// URL such as ws://127.0.0.1:8765/mcp, got "${daemonUrl}".`);
    }
    if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') throw new ConfigError(`--daemon-url must be a ws:// or wss:// URL, got "${daemonUrl}".`);
    if (parsed.protocol === 'ws:' && !isLoopbackHost(parsed.hostname)) {
      throw new ConfigError('--daemon-url must use wss:// for a daemon on another machine: the token would travel in clear.');
    }
    if (extension || cdpEndpoint || userDataDir) throw new ConfigError('--daemon-url runs the browser on the daemon: drop --extension, --cdp-endpoint and --user-data-dir.');
    // Files and secrets are the daemon's to hold: this gateway's paths and values mean nothing there.
    const browserFlags = [...BROWSER_FLAGS, 'secrets', 'fileRoots', 'allowUnrestrictedFileAccess'].filter(given);
    if (browserFlags.length) {
      throw new ConfigError(`--daemon-url runs the browser on the daemon, so ${browserFlags.map(flagName).join(', ')} cannot apply here. Drop ${browserFlags.length > 1 ? 'them' : 'it'}.`);
    }
  }
  return {
    port,
    host,
    extension,
    daemonUrl,
    daemonToken: str('daemonToken') ?? '',
    daemonBrowser: str('daemonBrowser'),
    daemonPort: int('daemonPort', 'daemon-port', 0, 65535)!,
    headless,
    headlessReason,
    executablePath: str('executablePath'),
    cdpEndpoint,
    cdpHeaders,
    cdpTimeoutMs: int('cdpTimeout', 'cdp-timeout', 0, 3_600_000)!,
    userDataDir,
    viewport,
    caps: caps as Capability[],
    sharedBrowserContext: bool('sharedBrowserContext'),
    allowedHosts: list(str('allowedHosts') ?? '').map((h) => h.toLowerCase()),
    allowedOrigins: origins('allowedOrigins', 'allowed-origins'),
    blockedOrigins: origins('blockedOrigins', 'blocked-origins'),
    outputDir: str('outputDir') ?? join(tmpdir(), 'browsermcp-output'),
    fileRoots: list(str('fileRoots') ?? ''),
    allowUnrestrictedFileAccess: bool('allowUnrestrictedFileAccess'),
    apiKeys: list(str('apiKey') ?? ''),
    noAuth,
    corsOrigins: origins('corsOrigins', 'cors-origins'),
    rateLimit: int('rateLimit', 'rate-limit', 1, 1_000_000) ?? (loopback ? undefined : 100),
    gracePeriodMs: int('gracePeriod', 'grace-period', 0, 86_400)! * 1000,
    sessionIdleMs: int('sessionIdleTimeout', 'session-idle-timeout', 0, 604_800)! * 1000,
    commandTimeoutMs: commandMs,
    snapshotMaxChars: int('snapshotMaxChars', 'snapshot-max-chars', 1000, 10_000_000)!,
    snapshotMode: oneOf('snapshotMode', 'snapshot-mode', ['full', 'none'] as const),
    snapshotBoxes: bool('snapshotBoxes'),
    actionTimeoutMs: int('timeoutAction', 'timeout-action', 1, 600_000)!,
    navigationTimeoutMs: navigationMs,
    consoleLevel: oneOf('consoleLevel', 'console-level', CONSOLE_LEVELS),
    imageResponses: oneOf('imageResponses', 'image-responses', ['allow', 'omit', 'only'] as const),
    testIdAttribute: testIdAttribute(str('testIdAttribute')!),
    maxTabs: int('maxTabs', 'max-tabs', 1, 1000)!,
    maxSessions: int('maxSessions', 'max-sessions', 1, 100_000)!,
    maxSessionsPerKey: int('maxSessionsPerKey', 'max-sessions-per-key', 1, 100_000)!,
    codegen: str('codegen') === 'playwright' ? 'typescript' : oneOf('codegen', 'codegen', [...CODEGEN_LANGUAGES, 'none'] as const),
    secrets: secretsFrom(str('secrets')),
    pageSetup,
    acceptInsecureCerts: bool('ignoreHttpsErrors'),
    proxy: proxyServer ? { server: proxyServer, bypass: str('proxyBypass') } : undefined,
    logLevel,
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
function cdpHeadersFrom(raw: unknown): Record<string, string> {
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
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

function testIdAttribute(name: string): string {
  if (!/^[A-Za-z_:][-A-Za-z0-9_:.]*$/.test(name)) throw new ConfigError(`--test-id-attribute must be an attribute name such as data-testid, got "${name}".`);
  return name;
}

/** "viewportSize" → "--viewport-size". */
function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
