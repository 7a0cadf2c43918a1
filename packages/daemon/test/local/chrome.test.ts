import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChannel, findChrome } from '../../src/index.js';

/** An executable file at `path` (made with its directories), as an installed browser would be. */
function install(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('findChrome', () => {
  it('takes CHROME_PATH first, then PATH, then the Puppeteer and Playwright caches (newest build first)', () => {
    const home = mkdtempSync(join(tmpdir(), 'bmcp-home-'));
    const bin = mkdtempSync(join(tmpdir(), 'bmcp-bin-'));
    // A platform with no install places here, so only what the test made can be found.
    const search = (env: NodeJS.ProcessEnv) => findChrome({ env, platform: 'aix', home });
    expect(search({ PATH: bin })).toBeUndefined();

    const playwright = install(join(home, '.cache', 'ms-playwright', 'chromium-1187', 'chrome-linux', 'chrome'));
    install(join(home, '.cache', 'ms-playwright', 'chromium-999', 'chrome-linux', 'chrome'));
    // Not a browser build: a folder Playwright keeps for something else.
    install(join(home, '.cache', 'ms-playwright', 'ffmpeg-1011', 'chrome-linux', 'chrome'));
    expect(search({ PATH: bin })).toBe(playwright);

    install(join(home, '.cache', 'puppeteer', 'chrome', 'linux-131.0.6778.204', 'chrome-linux64', 'chrome'));
    const newest = install(join(home, '.cache', 'puppeteer', 'chrome', 'linux-140.0.7339.80', 'chrome-linux64', 'chrome'));
    expect(search({ PATH: bin })).toBe(newest);

    const custom = mkdtempSync(join(tmpdir(), 'bmcp-pw-'));
    const configured = install(join(custom, 'chromium-1200', 'chrome-linux', 'chrome'));
    expect(findChrome({ env: { PATH: bin, PUPPETEER_CACHE_DIR: join(home, 'none'), PLAYWRIGHT_BROWSERS_PATH: custom }, platform: 'aix', home })).toBe(
      configured,
    );

    const onPath = install(join(bin, 'google-chrome'));
    expect(search({ PATH: bin })).toBe(onPath);
    expect(search({ PATH: bin, CHROME_PATH: '/opt/my/chrome' })).toBe('/opt/my/chrome');
  });

  it('knows the PATH names of every channel it tries, and Brave, as --browser does', () => {
    const home = mkdtempSync(join(tmpdir(), 'bmcp-home-'));
    for (const name of ['brave-browser', 'microsoft-edge-stable', 'chromium-browser', 'chrome']) {
      const bin = mkdtempSync(join(tmpdir(), 'bmcp-bin-'));
      const installed = install(join(bin, name));
      expect(findChrome({ env: { PATH: bin }, platform: 'aix', home })).toBe(installed);
    }
  });

  it('looks in the OS install places (this machine: Debian chromium)', () => {
    expect(findChrome({ env: { PATH: '' }, platform: 'linux', home: mkdtempSync(join(tmpdir(), 'bmcp-home-')) })).toBe('/usr/bin/chromium');
  });
});

describe('--browser (findChannel)', () => {
  it('finds each channel where it installs, or names where it looked and the fix; refuses Firefox and WebKit', () => {
    const home = mkdtempSync(join(tmpdir(), 'bmcp-home-'));
    const bin = mkdtempSync(join(tmpdir(), 'bmcp-bin-'));
    const search = { env: { PATH: bin }, platform: 'aix' as NodeJS.Platform, home };
    expect(findChannel('msedge', search)).toEqual({
      problem: expect.stringContaining('--browser msedge: Microsoft Edge is not installed here (looked at microsoft-edge on the PATH'),
    });
    const edge = install(join(bin, 'microsoft-edge'));
    expect(findChannel('msedge', search)).toEqual({ path: edge });
    // A channel is that browser only: Chrome on the PATH is not Edge Beta, nor Chromium.
    install(join(bin, 'google-chrome'));
    expect(findChannel('msedge-beta', search)).toHaveProperty('problem');
    expect(findChannel('chromium', search)).toHaveProperty('problem');
    expect(findChannel('chrome', search)).toEqual({ path: join(bin, 'google-chrome') });
    // Chromium comes from the Puppeteer and Playwright caches too.
    const cached = install(join(home, '.cache', 'ms-playwright', 'chromium-1187', 'chrome-linux', 'chrome'));
    expect(findChannel('chromium', search)).toEqual({ path: cached });
    expect(findChannel('chromium', { env: { PATH: '' }, platform: 'linux', home })).toEqual({ path: '/usr/bin/chromium' });
    for (const other of ['firefox', 'webkit']) {
      expect(findChannel(other, search)).toEqual({
        problem: expect.stringMatching(
          /browsermcp drives Chrome-family browsers \(Chrome, Edge, Chromium\) .*Pass --browser chrome, msedge or chromium, or --executable-path/,
        ),
      });
    }
    expect(findChannel('opera', search)).toEqual({ problem: expect.stringMatching(/^--browser must be one of chrome, chrome-beta, .*chromium, got "opera"/) });
  });
});
