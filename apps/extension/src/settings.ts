import { DEFAULT_DAEMON_PORT, parsePairingCode } from '@browsermcp/protocol';

/** What the user sets in the options page and the popup; kept in chrome.storage.local (survives restarts). */
export interface Settings {
  daemonUrl: string;
  accessToken: string;
  /** The secret shared with the daemon the person paired with (its pairing code), for that daemon's URL only. */
  pairingSecret: Uint8Array | undefined;
}

export const DEFAULT_DAEMON_URL = `ws://127.0.0.1:${DEFAULT_DAEMON_PORT}/extension`;

export async function loadSettings(): Promise<Settings> {
  const stored = await chrome.storage.local.get(['daemonUrl', 'accessToken', 'pairingCode']);
  const daemonUrl = typeof stored.daemonUrl === 'string' && stored.daemonUrl ? stored.daemonUrl : DEFAULT_DAEMON_URL;
  const pairing = typeof stored.pairingCode === 'string' ? parsePairingCode(stored.pairingCode) : undefined;
  return {
    daemonUrl,
    accessToken: typeof stored.accessToken === 'string' ? stored.accessToken : '',
    pairingSecret: pairing?.ok && pairing.value.url === daemonUrl ? pairing.value.secret : undefined,
  };
}

/**
 * Pairs this browser with the daemon a pasted pairing code names: keeps the code and connects to its URL. Returns
 * what is wrong with the code, or undefined once it is stored.
 */
export async function pairWith(code: string): Promise<string | undefined> {
  const pairing = parsePairingCode(code);
  if (!pairing.ok) return pairing.message;
  await chrome.storage.local.set({ pairingCode: code.trim(), daemonUrl: pairing.value.url, paused: false });
  return undefined;
}

/** A ws:// daemon is on this computer: it must be paired (a wss:// one is checked by TLS and its token instead). */
export function needsPairing(url: string): boolean {
  return url.startsWith('ws://');
}

/** Why a daemon URL is unusable, or undefined when it is fine. */
export function checkDaemonUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Not a URL. Example: ws://127.0.0.1:8765/extension';
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') return 'Use a ws:// or wss:// URL.';
  const loopback = parsed.hostname === '127.0.0.1' || parsed.hostname === 'localhost' || parsed.hostname === '[::1]';
  if (parsed.protocol === 'ws:' && !loopback) return 'A remote daemon must use wss:// (the token would travel in clear).';
  return undefined;
}
