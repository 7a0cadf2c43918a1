import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

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
  const args = [...QUIET_FLAGS, ...extraArgs];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return puppeteer.launch({
    executablePath: testChromePath(),
    headless: true,
    args,
    defaultViewport: { width: 1280, height: 720 },
  });
}
