import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What a launched browser needs so that its pages stay within the origin lists, for the requests a page's own
 * interception never sees (measured in Chromium 156 with a page on an allowed host):
 * - speculation rules (prefetch, prerender) are fetched by the browser for the page: Chrome's "Preload pages"
 *   setting off (`net.network_prediction_options` 2) stops them; no command-line flag or DevTools command does;
 * - a SharedWorker is a browser-wide target of its own, outside every tab: it is switched off.
 * WebSockets are not intercepted either, and cannot be held this way: SECURITY.md lists them.
 */
export const HELD_ARGS = ['--disable-blink-features=SharedWorker'];

/** A profile directory for a launch whose pages are held to origin lists: `userDataDir` (the user's), or a new one. */
export function heldProfile(userDataDir: string | undefined): { dir: string; remove(): void } {
  const own = userDataDir === undefined;
  const dir = userDataDir ?? mkdtempSync(join(tmpdir(), 'bmcp-profile-'));
  const file = join(dir, 'Default', 'Preferences');
  mkdirSync(join(dir, 'Default'), { recursive: true });
  let prefs: Record<string, unknown> = {};
  try {
    prefs = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // None yet (a new profile), or unreadable: Chrome starts from what is written here.
  }
  const net = typeof prefs.net === 'object' && prefs.net !== null ? (prefs.net as Record<string, unknown>) : {};
  prefs.net = { ...net, network_prediction_options: 2 };
  writeFileSync(file, JSON.stringify(prefs));
  return { dir, remove: () => (own ? rmSync(dir, { recursive: true, force: true }) : undefined) };
}
