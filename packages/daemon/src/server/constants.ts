import { DEFAULT_DAEMON_PORT } from '@browsermcp/protocol';

/**
 * The id of the browsermcp extension, the only `chrome-extension://` Origin /extension accepts by default.
 * Chrome derives it from the public `key` in apps/extension/static/manifest.json, so it is the same on every machine.
 */
export const EXTENSION_ID = 'cmdffnckcgjgekgabmggmpmhjpgmiehn';

export const DEFAULT_PORT = DEFAULT_DAEMON_PORT;
export const DEFAULT_HOST = '127.0.0.1';
/** A ping every 15 s, and a peer that missed one pong is dropped: a dead peer is found within ~30 s. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** How long an extension has to answer `authenticate` and send its hello. */
export const DEFAULT_HELLO_TIMEOUT_MS = 10_000;

/** Chrome extension ids are 32 letters from a to p. */
export const EXTENSION_ID_PATTERN = /^[a-p]{32}$/;

/** Whether a bind address stays on this machine: localhost, ::1 or any of 127.0.0.0/8. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
