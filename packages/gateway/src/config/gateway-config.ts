import {
  applySettingSources,
  ConfigError,
  isLoopbackHost,
  readSharedSettings,
  readToolFlags,
  SHARED_SETTINGS,
  entryAttribute,
  serverFilePaths,
  SettingValues,
  type PageSetupOptions,
  type SharedSettings,
} from '@browsermcp/daemon';
import type { SessionSettings, ToolSettingValues } from '@browsermcp/protocol';
import type { Command } from 'commander';
import { refuseOutOfMode, refuseOutsideHttp } from './modes.js';
import { RATE_LIMIT_OFF_LOOPBACK, readOwnSettings, type OwnSettingValues } from './own-settings.js';
import { cdpHeadersFrom, checkKeyStrength, daemonUrlsFrom, keysFrom, pageSetupFrom, secretsFrom, storageStateFrom, trustProxyFrom } from './values.js';

export { ConfigError };
export { buildProgram } from './options.js';

/**
 * The shared settings (the daemon reads the same ones, the same way), the tool settings and the gateway's own plain
 * settings (each from its table), and the values the gateway derives from its other flags.
 */
export interface GatewayConfig extends SharedSettings, ToolSettingValues, OwnSettingValues {
  /** The remote daemon's proxy endpoints, in failover order (empty: the embedded daemon). */
  daemonUrls: string[];
  /** --cdp-header: sent with every request to the CDP endpoint. */
  cdpHeaders: Record<string, string>;
  /** The server's own files and folders the flags name (keys, secrets, config, profile): no tool reads them. */
  protectedPaths: string[];
  /** Keys HTTP clients may use; empty means one is generated at startup (unless noAuth). */
  apiKeys: string[];
  /** Labels of keys from --api-key-file's `label=key` lines, by key: shown with the key's fingerprint, never the key. */
  apiKeyLabels: Map<string, string>;
  /** --no-auth. */
  noAuth: boolean;
  /** --trust-proxy, read: undefined when not behind a proxy. */
  trustProxy: boolean | number | string[] | undefined;
  /** The keys came from the user (--api-key, its variable, --api-key-file): the banner does not print them. */
  apiKeysGiven: boolean;
  /**
   * The tool settings the user set (flag, variable or config file), not their defaults: what a remote daemon is asked
   * for, so that its operator's own values hold for the rest.
   */
  toolSettingsGiven: SessionSettings;
  /** --keep-browser-state, in ms: sessions of one key share a browser state that outlives each of them this long. */
  keepBrowserStateMs: number | undefined;
  /** --secrets: name → value. */
  secrets: Record<string, string> | undefined;
  /** How each page and context of a launched (or CDP) browser is set up. */
  pageSetup: PageSetupOptions;
  /** --ignore-https-errors. */
  ignoreHttpsErrors: boolean;
  proxy: { server: string; bypass?: string | undefined } | undefined;
}

/** Defaults < config file < environment < command line; then every value is checked once, here. */
export function resolveConfig(program: Command, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  applySettingSources(program);
  const v = new SettingValues(program);
  const str = (k: string) => v.str(k);
  const bool = (k: string) => v.bool(k);
  const list = (k: string) => v.list(k);
  const given = (k: string) => v.given(k);

  // Flags that cannot apply in the chosen mode are refused before any value is read (--browser would look for a
  // browser); from here on every flag read applies.
  const mode = refuseOutOfMode(program.options, v);
  // Over stdio, the flags of MCP over HTTP: refused the same way.
  refuseOutsideHttp(program.options, v);
  const extension = mode === 'extension';
  const shared = readSharedSettings(v, env);
  const own = readOwnSettings(v);
  const { host, userDataDir } = shared;
  const loopback = isLoopbackHost(host);

  const cdpHeaders = cdpHeadersFrom(v.many('cdpHeader'));
  if (bool('isolated') && userDataDir) throw new ConfigError('--isolated and --user-data-dir contradict each other: pick one.');

  // --no-auth sets auth=false in commander (its default is true).
  const noAuth = !v.bool('auth');
  if (noAuth && shared.port !== undefined && !loopback) {
    throw new ConfigError(`--no-auth is only allowed on a loopback host; ${host} is reachable from other machines. Use --api-key.`);
  }

  if (own.trustClientRoots && !loopback) {
    throw new ConfigError(
      `--trust-client-roots applies on a loopback host: a client reaching ${host} from elsewhere names paths of its own machine, not this one. Use --file-roots for folders here.`,
    );
  }
  const keysGiven = list('apiKey');
  // A key given (over HTTP: refused over stdio) must be a strong one.
  if (shared.port !== undefined) checkKeyStrength(keysGiven, v.source('apiKey') === 'env' ? 'BROWSERMCP_API_KEY' : '--api-key');
  const fromFile = keysFrom(str('apiKeyFile'));
  const apiKeys = [...keysGiven, ...fromFile.map((k) => k.key)];
  const apiKeyLabels = new Map(fromFile.flatMap((k) => (k.label ? [[k.key, k.label] as const] : [])));
  if (noAuth && apiKeys.length) throw new ConfigError('--no-auth and an API key contradict each other: keep one.');

  // The grace period keeps a session whose legacy SSE stream dropped (HTTP), or whose browser went away (--extension).
  if (shared.port === undefined && mode !== 'extension' && v.given('gracePeriod')) {
    throw new ConfigError(
      '--grace-period keeps a session whose legacy SSE stream dropped (over HTTP) or whose browser disconnected (--extension); over stdio without --extension it has nothing to keep. Add --port or --extension, or drop it.',
    );
  }
  // With --daemon-url the daemon saves what tools write; this gateway writes only --save-session's records.
  const strayFiles = [SHARED_SETTINGS.outputDir, SHARED_SETTINGS.outputMaxBytes]
    .filter((entry) => v.given(entryAttribute(entry)))
    .map((entry) => `--${entry.flag}`);
  if (mode === 'daemon' && !own.saveSession && strayFiles.length) {
    throw new ConfigError(
      `with --daemon-url the daemon saves what tools write: set ${strayFiles.join(' and ')} on browsermcp-daemon (here ${strayFiles.length > 1 ? 'they shape' : 'it shapes'} only --save-session's records).`,
    );
  }

  const tools = readToolFlags(v, shared.commandTimeoutMs);
  const proxyServer = str('proxyServer');
  if (proxyServer && !/^(https?|socks[45]?):\/\/[^/\s]+\/?$/i.test(proxyServer)) {
    throw new ConfigError(`--proxy-server must be a proxy URL such as http://proxy:3128 or socks5://proxy:1080, got "${proxyServer}".`);
  }
  if (str('proxyBypass') && !proxyServer) throw new ConfigError('--proxy-bypass needs --proxy-server.');
  const pageSetup = {
    ...pageSetupFrom(str('userAgent'), str('device'), bool('mobile'), list('initScript'), list('grantPermissions'), bool('blockServiceWorkers')),
    ...storageStateFrom(str('storageState')),
  };
  if (pageSetup.storageState && (shared.sharedBrowserContext || userDataDir)) {
    throw new ConfigError('--storage-state starts each session in its own fresh context: it cannot apply with --shared-browser-context or --user-data-dir.');
  }
  const daemonUrls = daemonUrlsFrom(str('daemonUrl'));
  const keepText = str('keepBrowserState');
  let keepBrowserStateMs: number | undefined;
  if (keepText !== undefined) {
    const minutes = Number(keepText);
    if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 7 * 24 * 60) {
      throw new ConfigError(`--keep-browser-state must be a number of minutes above 0 (at most a week), got "${keepText}".`);
    }
    if (shared.sharedBrowserContext || userDataDir) {
      throw new ConfigError(
        '--keep-browser-state keeps one state per key; with --shared-browser-context or --user-data-dir every session already shares one. Drop one of them.',
      );
    }
    keepBrowserStateMs = Math.round(minutes * 60_000);
  }
  // No browser of ours to close with --extension or --daemon-url. A kept state lives in the browser: an idle browser
  // may not close before the states it holds would.
  let idleTimeoutMs = extension || daemonUrls.length ? undefined : shared.idleTimeoutMs;
  if (idleTimeoutMs !== undefined && keepBrowserStateMs !== undefined && idleTimeoutMs < keepBrowserStateMs) {
    if (given('idleTimeout')) {
      throw new ConfigError(
        `--idle-timeout (${idleTimeoutMs} ms) would close the browser, and the states it keeps, before --keep-browser-state (${keepText} minutes) is up. Raise --idle-timeout, or pass 0 to keep the browser open.`,
      );
    }
    idleTimeoutMs = keepBrowserStateMs;
  }
  // Nor, by default, before the sessions it serves time out: sessions kept for ever (0) keep it open too.
  const { sessionIdleMs } = own;
  if (idleTimeoutMs !== undefined && !given('idleTimeout')) idleTimeoutMs = sessionIdleMs === 0 ? undefined : Math.max(idleTimeoutMs, sessionIdleMs);
  return {
    ...shared,
    ...own,
    idleTimeoutMs,
    commandTimeoutMs: tools.commandTimeoutMs,
    extension,
    daemonUrls,
    cdpHeaders,
    ...tools.settings,
    toolSettingsGiven: tools.given,
    protectedPaths: serverFilePaths(program),
    apiKeys,
    apiKeyLabels,
    apiKeysGiven: apiKeys.length > 0,
    trustProxy: trustProxyFrom(str('trustProxy')),
    noAuth,
    rateLimit: own.rateLimit ?? (loopback ? undefined : RATE_LIMIT_OFF_LOOPBACK),
    keepBrowserStateMs,
    secrets: secretsFrom(str('secrets')),
    pageSetup,
    ignoreHttpsErrors: bool('ignoreHttpsErrors'),
    proxy: proxyServer ? { server: proxyServer, bypass: str('proxyBypass') } : undefined,
  };
}
