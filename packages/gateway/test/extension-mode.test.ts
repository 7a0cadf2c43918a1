import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EXTENSION_ID } from '@browsermcp/daemon';
import { launchExtensionBrowser, openExtensionPage, startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionBackend, type RunningHttpGateway } from '../src/index.js';
import { connectClient, refIn, startGateway, text } from './helpers.js';

const EXTENSION_DIR = join(dirname(createRequire(import.meta.url).resolve('@browsermcp/extension/package.json')), 'dist');

let gw: RunningHttpGateway;
let server: FixtureServer;
let browser: Browser;

beforeAll(async () => {
  [gw, server, browser] = await Promise.all([
    startGateway(['--extension', '--daemon-port', '0']),
    startFixtureServer(),
    launchExtensionBrowser(EXTENSION_DIR),
  ]);
  // What a user does once in the options page when the daemon is not on the default port.
  const options = await openExtensionPage(browser, EXTENSION_ID, 'options.html');
  const url = (gw.backend as ExtensionBackend).extensionUrl;
  await options.evaluate(
    (u) => (globalThis as unknown as { chrome: { storage: { local: { set(v: object): Promise<void> } } } }).chrome.storage.local.set({ daemonUrl: u, paused: false }),
    url,
  );
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await server?.close();
});

describe('--extension: the user\'s own browser', () => {
  it('runs navigate, snapshot and click in the browser that has the extension', async () => {
    const client = await connectClient(gw, 'Claude Code');
    await expect.poll(async () => ((await (await fetch(`${gw.url}/health`)).json()) as { browser: { connected: boolean } }).browser.connected).toBe(true);
    const nav = text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }));
    expect(nav).toContain('- Page Title: Fixture home');
    const snap = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
    const clicked = text(await client.callTool({ name: 'browser_click', arguments: { target: refIn(snap, 'button "Click me"') } }));
    expect(clicked).toContain('button "Clicked 1 times"');
    const pages = await browser.pages();
    expect(pages.some((p) => p.url() === server.url('/index.html'))).toBe(true);
    await client.close();
  });
});

describe('--extension without a connected browser', () => {
  it('says how to connect one instead of hanging', async () => {
    const backend = await ExtensionBackend.start({ daemonPort: 0, connectWaitMs: 300 });
    try {
      await expect(backend.openSession('lonely', 'agent')).rejects.toThrow(
        /No browser is connected\. Install the browsermcp extension .* its daemon URL is ws:\/\/127\.0\.0\.1:\d+\/extension/,
      );
      expect(backend.browserConnected()).toBe(false);
    } finally {
      await backend.close();
    }
  });
});
