import { accessSync, constants, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The channels auto-detection tries, in order, per OS (Chromium first on Linux, where distributions package it). */
function autoChannels(platform: NodeJS.Platform): BrowserChannel[] {
  if (platform === 'darwin') return ['chrome', 'chromium', 'chrome-canary', 'msedge'];
  if (platform === 'win32') return ['chrome', 'msedge', 'chromium'];
  return ['chromium', 'chrome', 'msedge'];
}

/** Brave is no `--browser` channel, but auto-detection takes it when it is all there is. */
function bravePlaces(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): { paths: string[]; names: string[] } {
  if (platform === 'darwin') return { paths: ['/Applications/Brave Browser.app/Contents/MacOS/Brave Browser'], names: [] };
  if (platform === 'win32') return { paths: windowsRoots(env).map((root) => `${root}\\BraveSoftware\\Brave-Browser\\Application\\brave.exe`), names: [] };
  return { paths: platform === 'linux' ? ['/opt/brave.com/brave/brave'] : [], names: ['brave-browser'] };
}

/** Where auto-detection looks: each channel's install places, then the names on the PATH (a bare "chrome" too). */
function autoPlaces(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): { paths: string[]; names: string[] } {
  const places = [...autoChannels(platform).map((channel) => channelPlaces(channel, platform, env)), bravePlaces(platform, env)];
  return { paths: places.flatMap((p) => p.paths), names: [...new Set([...places.flatMap((p) => p.names), 'chrome'])] };
}

function windowsRoots(env: NodeJS.ProcessEnv): string[] {
  return [env.PROGRAMFILES ?? 'C:\\Program Files', env['PROGRAMFILES(X86)'] ?? 'C:\\Program Files (x86)', env.LOCALAPPDATA].filter((r): r is string => !!r);
}

/** The browsers Puppeteer and Playwright downloaded, newest build first (their caches, default or as configured). */
function cachedBrowsers(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string[] {
  const puppeteerCache = env.PUPPETEER_CACHE_DIR ?? join(home, '.cache', 'puppeteer');
  const playwrightCache =
    env.PLAYWRIGHT_BROWSERS_PATH && env.PLAYWRIGHT_BROWSERS_PATH !== '0'
      ? env.PLAYWRIGHT_BROWSERS_PATH
      : platform === 'darwin'
        ? join(home, 'Library', 'Caches', 'ms-playwright')
        : platform === 'win32'
          ? join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'ms-playwright')
          : join(home, '.cache', 'ms-playwright');
  const binary =
    platform === 'darwin'
      ? {
          puppeteer: ['chrome-mac-x64', 'chrome-mac-arm64'].map((d) =>
            join(d, 'Google Chrome for Testing.app', 'Contents', 'MacOS', 'Google Chrome for Testing'),
          ),
          playwright: ['chrome-mac', 'chrome-mac-arm64'].map((d) => join(d, 'Chromium.app', 'Contents', 'MacOS', 'Chromium')),
        }
      : platform === 'win32'
        ? {
            puppeteer: [join('chrome-win64', 'chrome.exe'), join('chrome-win32', 'chrome.exe')],
            playwright: [join('chrome-win', 'chrome.exe'), join('chrome-win64', 'chrome.exe')],
          }
        : { puppeteer: [join('chrome-linux64', 'chrome')], playwright: [join('chrome-linux', 'chrome'), join('chrome-linux64', 'chrome')] };
  // Puppeteer: <cache>/chrome/<platform>-<version>/<dir>/<binary>; Playwright: <cache>/chromium-<revision>/<dir>/<binary>.
  const puppeteer = subdirs(join(puppeteerCache, 'chrome')).flatMap((d) => binary.puppeteer.map((b) => join(puppeteerCache, 'chrome', d, b)));
  const playwright = subdirs(playwrightCache)
    .filter((d) => /^chromium-\d+$/.test(d))
    .flatMap((d) => binary.playwright.map((b) => join(playwrightCache, d, b)));
  return [...puppeteer, ...playwright];
}

/** A directory's subdirectories, newest version first (names compared as versions); none if it is absent. */
function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
  } catch {
    return [];
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface ChromeSearch {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

/**
 * Finds an installed Chrome or Chromium (or Edge, Brave): CHROME_PATH, then the usual install places of this OS, then
 * the PATH, then the browsers Puppeteer and Playwright downloaded. Returns undefined when there is none (browser
 * downloads are never attempted).
 */
export function findChrome(search: ChromeSearch = {}): string | undefined {
  const env = search.env ?? process.env;
  const platform = search.platform ?? process.platform;
  if (env.CHROME_PATH) return env.CHROME_PATH;
  const { paths, names } = autoPlaces(platform, env);
  for (const p of paths) if (executable(p)) return p;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const p = join(dir, name);
      if (executable(p)) return p;
    }
  }
  for (const p of cachedBrowsers(platform, env, search.home ?? homedir())) if (executable(p)) return p;
  return undefined;
}

/** What to do when findChrome finds nothing: one sentence for the banner, /health and the first tool call. */
export const NO_CHROME_FIX =
  'No Chrome or Chromium found (looked at CHROME_PATH, the usual install places, PATH, and the Puppeteer and Playwright browser caches): install Chrome, or pass --executable-path <path>.';

/** Flags that keep a launched Chromium quiet on closed networks and free of first-run UI. */
export const QUIET_ARGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-quic',
];

/**
 * The browser a launch would use (`executablePath`, else the one found), or why there is none, with the fix: for the
 * banners and /health, so that a missing browser shows before the first tool call.
 */
export function chromeToLaunch(executablePath?: string): { path: string } | { problem: string } {
  if (executablePath === undefined) {
    const found = findChrome();
    return found ? { path: found } : { problem: NO_CHROME_FIX };
  }
  return executable(executablePath)
    ? { path: executablePath }
    : { problem: `--executable-path ${executablePath} is not an executable file: pass the path of the Chrome or Chromium binary.` };
}

/** The Chrome-family browsers `--browser` names (Playwright's channel names), and where each installs itself. */
export const BROWSER_CHANNELS = [
  'chrome',
  'chrome-beta',
  'chrome-dev',
  'chrome-canary',
  'msedge',
  'msedge-beta',
  'msedge-dev',
  'msedge-canary',
  'chromium',
] as const;
export type BrowserChannel = (typeof BROWSER_CHANNELS)[number];

const CHANNEL_NAMES: Record<BrowserChannel, string> = {
  chrome: 'Google Chrome',
  'chrome-beta': 'Google Chrome Beta',
  'chrome-dev': 'Google Chrome Dev',
  'chrome-canary': 'Google Chrome Canary',
  msedge: 'Microsoft Edge',
  'msedge-beta': 'Microsoft Edge Beta',
  'msedge-dev': 'Microsoft Edge Dev',
  'msedge-canary': 'Microsoft Edge Canary',
  chromium: 'Chromium',
};

/** Where one channel installs itself on this OS, then the names it has on the PATH. */
function channelPlaces(channel: BrowserChannel, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): { paths: string[]; names: string[] } {
  const name = CHANNEL_NAMES[channel];
  if (platform === 'darwin') return { paths: [`/Applications/${name}.app/Contents/MacOS/${name}`], names: [] };
  if (platform === 'win32') {
    const roots = windowsRoots(env);
    const folder: Record<BrowserChannel, string> = {
      chrome: 'Google\\Chrome',
      'chrome-beta': 'Google\\Chrome Beta',
      'chrome-dev': 'Google\\Chrome Dev',
      'chrome-canary': 'Google\\Chrome SxS',
      msedge: 'Microsoft\\Edge',
      'msedge-beta': 'Microsoft\\Edge Beta',
      'msedge-dev': 'Microsoft\\Edge Dev',
      'msedge-canary': 'Microsoft\\Edge SxS',
      chromium: 'Chromium',
    };
    const exe = channel.startsWith('msedge') ? 'msedge.exe' : 'chrome.exe';
    return { paths: roots.map((root) => `${root}\\${folder[channel]}\\Application\\${exe}`), names: [] };
  }
  const linux: Record<BrowserChannel, { paths: string[]; names: string[] }> = {
    chrome: { paths: ['/opt/google/chrome/chrome'], names: ['google-chrome', 'google-chrome-stable'] },
    'chrome-beta': { paths: ['/opt/google/chrome-beta/chrome'], names: ['google-chrome-beta'] },
    'chrome-dev': { paths: ['/opt/google/chrome-unstable/chrome'], names: ['google-chrome-unstable'] },
    'chrome-canary': { paths: ['/opt/google/chrome-canary/chrome'], names: ['google-chrome-canary'] },
    msedge: { paths: ['/opt/microsoft/msedge/msedge'], names: ['microsoft-edge', 'microsoft-edge-stable'] },
    'msedge-beta': { paths: ['/opt/microsoft/msedge-beta/msedge'], names: ['microsoft-edge-beta'] },
    'msedge-dev': { paths: ['/opt/microsoft/msedge-dev/msedge'], names: ['microsoft-edge-dev'] },
    'msedge-canary': { paths: ['/opt/microsoft/msedge-canary/msedge'], names: ['microsoft-edge-canary'] },
    chromium: { paths: ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium'], names: ['chromium', 'chromium-browser'] },
  };
  // Elsewhere (the BSDs…) only the PATH names are known.
  return platform === 'linux' ? linux[channel] : { paths: [], names: linux[channel].names };
}

/**
 * The executable of the browser `--browser` names (@playwright/mcp's channels), or why there is none, with the fix.
 * Firefox and WebKit are refused: browsermcp drives Chrome-family browsers over CDP.
 */
export function findChannel(channel: string, search: ChromeSearch = {}): { path: string } | { problem: string } {
  if (channel === 'firefox' || channel === 'webkit') {
    return {
      problem: `--browser ${channel}: browsermcp drives Chrome-family browsers (Chrome, Edge, Chromium) over the Chrome DevTools Protocol, so ${channel === 'firefox' ? 'Firefox' : 'WebKit'} cannot be used. Pass --browser chrome, msedge or chromium, or --executable-path.`,
    };
  }
  if (!(BROWSER_CHANNELS as readonly string[]).includes(channel)) {
    return { problem: `--browser must be one of ${BROWSER_CHANNELS.join(', ')}, got "${channel}".` };
  }
  const env = search.env ?? process.env;
  const platform = search.platform ?? process.platform;
  const { paths, names } = channelPlaces(channel as BrowserChannel, platform, env);
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .flatMap((dir) => names.map((name) => join(dir, name)));
  const cached = channel === 'chromium' ? cachedBrowsers(platform, env, search.home ?? homedir()) : [];
  const found = [...paths, ...onPath, ...cached].find(executable);
  if (found) return { path: found };
  const looked = [...paths, ...names.map((n) => `${n} on the PATH`)].join(', ');
  return {
    problem: `--browser ${channel}: ${CHANNEL_NAMES[channel as BrowserChannel]} is not installed here (looked at ${looked}). Install it, or pass --executable-path <path>.`,
  };
}
