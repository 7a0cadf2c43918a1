/**
 * The small parsers of the gateway's own flags: each reads one value (or the file it names) and refuses it with a
 * ConfigError that names the flag and the fix.
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { ConfigError, deviceNames, isLoopbackHost, type PageSetupOptions } from '@browsermcp/daemon';

/** A file a flag names, as text; a ConfigError naming the flag and why when it cannot be read. */
export function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`--${flag} ${path}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
  }
}

export function pageSetupFrom(
  userAgent: string | undefined,
  device: string | undefined,
  mobile: boolean,
  initScripts: string[],
  permissions: string[],
  blockServiceWorkers: boolean,
): PageSetupOptions {
  if (device && mobile) throw new ConfigError('--mobile is a generic phone and --device a chosen one: pass one of them.');
  const names = deviceNames();
  if (device && !names.includes(device)) {
    const near = names.filter((n) => n.toLowerCase().includes(device.toLowerCase().split(' ')[0]!)).slice(0, 8);
    throw new ConfigError(
      `--device: unknown device "${device}"${near.length ? `. Close ones: ${near.join(', ')}` : ''}. Names are puppeteer's KnownDevices, e.g. "iPhone 15", "Pixel 5".`,
    );
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
export function cdpHeadersFrom(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    const name = colon > 0 ? value.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new ConfigError(`--cdp-header must look like "Authorization: Bearer abc", got "${value}".`);
    headers[name] = value.slice(colon + 1).trim();
  }
  return headers;
}

export function secretsFrom(file: string | undefined): Record<string, string> | undefined {
  if (!file) return undefined;
  const secrets = Object.fromEntries(
    Object.entries(parseEnv(readFlagFile('secrets', file))).flatMap(([name, value]) => (value === undefined ? [] : [[name, value]])),
  );
  if (!Object.keys(secrets).length) throw new ConfigError(`--secrets ${file}: no NAME=value lines in it.`);
  return secrets;
}

export function storageStateFrom(file: string | undefined): Pick<PageSetupOptions, 'storageState'> {
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError(`--storage-state ${file}: cannot read it as JSON (${why}).`);
  }
  const state = parsed as { cookies?: unknown; origins?: unknown };
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    (state.cookies !== undefined && !Array.isArray(state.cookies)) ||
    (state.origins !== undefined && !Array.isArray(state.origins))
  ) {
    throw new ConfigError(`--storage-state ${file}: must be Playwright's storage state, an object {cookies: [...], origins: [...]}.`);
  }
  return { storageState: parsed as NonNullable<PageSetupOptions['storageState']> };
}

/** --api-key-file: one key per line (or comma-separated), blank lines and "#" comments skipped. */
/** A line of --api-key-file: a key, or `label=key` (the label names it in the banner and the log, never the key). */
const LABELLED = /^([A-Za-z][\w .-]{0,39})=(\S{16,})$/;

export function keysFrom(file: string | undefined): Array<{ key: string; label?: string }> {
  if (!file) return [];
  const keys = readFlagFile('api-key-file', file)
    .split('\n')
    .map((line) => line.replace(/#.*/, ''))
    .flatMap((line) => line.split(','))
    .map((k) => k.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = LABELLED.exec(entry);
      return m ? { key: m[2]!, label: m[1]!.trim() } : { key: entry };
    });
  if (!keys.length) throw new ConfigError(`--api-key-file ${file}: no key in it (one per line).`);
  checkKeyStrength(
    keys.map((k) => k.key),
    `--api-key-file ${file}`,
  );
  return keys;
}

/** A key the gateway serves HTTP with must not be guessable, wherever it came from (flag, variable or file). */
export function checkKeyStrength(keys: readonly string[], source: string): void {
  const short = keys.find((k) => k.length < 16);
  if (short !== undefined)
    throw new ConfigError(`${source}: a key of ${short.length} characters is too easy to guess; use 16 or more (e.g. openssl rand -base64 24).`);
}

/** --trust-proxy: "true"/"false", a hop count, or addresses and CIDRs (Fastify's trustProxy forms). */
export function trustProxyFrom(text: string | undefined): boolean | number | string[] | undefined {
  if (text === undefined) return undefined;
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = entries.find((e) => !/^[0-9a-f.:]+(\/\d{1,3})?$/i.test(e) && !['loopback', 'linklocal', 'uniquelocal'].includes(e));
  if (!entries.length || bad !== undefined) {
    throw new ConfigError(`--trust-proxy must be true, a hop count, or proxy addresses/CIDRs such as 10.0.0.0/8,127.0.0.1, got "${bad ?? text}".`);
  }
  return entries;
}

/** --daemon-url: comma-separated ws:// or wss:// URLs, tried in turn; ws:// only to this machine (the token travels in it). */
export function daemonUrlsFrom(text: string | undefined): string[] {
  const daemonUrls = (text ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
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
  return daemonUrls;
}
