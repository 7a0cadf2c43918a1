import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type LaunchOptions, type Page } from 'puppeteer-core';

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/** The Chromium the tests drive: CHROME_PATH, else the first installed one. */
export function testChromePath(): string {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) return fromEnv;
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found) throw new Error('No Chrome/Chromium found for the tests: install chromium or set CHROME_PATH.');
  return found;
}

/** Flags that keep a headless test browser quiet on a machine without internet. */
export const QUIET_FLAGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-gpu',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

export async function launchTestBrowser(extraArgs: string[] = []): Promise<Browser> {
  return launchHeadless(extraArgs);
}

// The installed Chromium, headless and quiet; root needs --no-sandbox.
function launchHeadless(extraArgs: string[], options: Pick<LaunchOptions, 'targetFilter'> = {}): Promise<Browser> {
  const args = [...QUIET_FLAGS, ...extraArgs];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return puppeteer.launch({
    executablePath: testChromePath(),
    headless: true,
    args,
    defaultViewport: { width: 1280, height: 720 },
    ...options,
  });
}

/**
 * A test browser with an unpacked extension loaded (headless Debian Chromium honours --load-extension).
 * Puppeteer stays off service workers: attached to one, it holds the worker at "starting" when Chrome restarts it.
 */
export async function launchExtensionBrowser(extensionDir: string): Promise<Browser> {
  return launchHeadless([`--load-extension=${extensionDir}`, `--disable-extensions-except=${extensionDir}`], {
    targetFilter: (target) => target.type() !== 'service_worker',
  });
}

/**
 * An extension page (e.g. the options page) to call chrome.* APIs from, as the extension itself would: tests never
 * open a DevTools session on the extension's worker.
 */
export async function openExtensionPage(browser: Browser, extensionId: string, path: string): Promise<Page> {
  await browser.waitForTarget((t) => t.type() === 'service_worker' && t.url().startsWith(`chrome-extension://${extensionId}/`));
  const page = await browser.newPage();
  await page.goto(`chrome-extension://${extensionId}/${path}`);
  return page;
}

/**
 * Stops the extension's service worker the way Chrome does when it is idle (CDP ServiceWorker.stopAllWorkers from a
 * page session). The domain must have reported the worker running first, or the stop does not reach it; the session
 * is let go afterwards, since a DevTools client holding the domain would keep the restarted worker at "starting".
 */
export async function stopExtensionWorker(page: Page, extensionId: string): Promise<void> {
  const cdp = await page.createCDPSession();
  const running = new Promise<void>((resolve) =>
    cdp.on('ServiceWorker.workerVersionUpdated', (e) => {
      if (e.versions.some((v) => v.scriptURL.startsWith(`chrome-extension://${extensionId}/`) && v.runningStatus === 'running')) resolve();
    }),
  );
  await cdp.send('ServiceWorker.enable');
  await running;
  await cdp.send('ServiceWorker.stopAllWorkers');
  await cdp.detach();
}
