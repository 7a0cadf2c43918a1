/// <reference lib="dom" />
import { mkdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTENSION_ID } from '@browsermcp/daemon';
import { formatPairingCode, newPairingSecret, parsePairingCode } from '@browsermcp/protocol';
import { launchExtensionBrowser, openExtensionPage, startFixtureServer, startWsRelay, stopExtensionWorker, type FixtureServer } from '@browsermcp/testkit';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionBackend, type RunningHttpGateway } from '../src/index.js';
import { connectClient, modernClient, refIn, startGateway, text } from './helpers.js';

const EXTENSION_DIR = join(dirname(createRequire(import.meta.url).resolve('@browsermcp/extension/package.json')), 'dist');

let gw: RunningHttpGateway;
let server: FixtureServer;
let browser: Browser;
let control: Page;
let helper: Page;
const ARTIFACTS = fileURLToPath(new URL('../test-results/', import.meta.url));

beforeAll(async () => {
  [gw, server, browser] = await Promise.all([startGateway(['--extension', '--daemon-port', '0']), startFixtureServer(), launchExtensionBrowser(EXTENSION_DIR)]);
  // What a user does once in the options page when the daemon is not on the default port.
  const options = await openExtensionPage(browser, EXTENSION_ID, 'options.html');
  control = options;
  // Opened before any agent tab exists, for the CDP session that stops the worker and to show the popup.
  helper = await browser.newPage();
  const backend = gw.backend as ExtensionBackend;
  // What the person does once: paste the pairing code the gateway printed (it names the daemon's URL too).
  await options.evaluate(
    (u, code) =>
      (globalThis as unknown as { chrome: { storage: { local: { set(v: object): Promise<void> } } } }).chrome.storage.local.set({
        daemonUrl: u,
        pairingCode: code,
        paused: false,
        askBeforeNewAgents: false,
      }),
    backend.extensionUrl,
    backend.pairingCode,
  );
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await server?.close();
});

describe("--extension: the user's own browser", () => {
  it('serves two MCP clients at once, each in its own tab group, and survives the worker being stopped', async () => {
    const [a, b] = await Promise.all([connectClient(gw, 'Agent Alpha'), connectClient(gw, 'Agent Beta')]);
    await expect.poll(async () => ((await (await fetch(`${gw.url}/health`)).json()) as { browser: { connected: boolean } }).browser.connected).toBe(true);
    const [navA, navB] = await Promise.all([
      a.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }),
      b.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } }),
    ]);
    expect(text(navA)).toContain('- Page Title: Fixture home');
    expect(text(navB)).toContain('- Page Title: Form');
    const snapA = text(await a.callTool({ name: 'browser_snapshot', arguments: {} }));
    const clicked = text(await a.callTool({ name: 'browser_click', arguments: { target: refIn(snapA, 'button "Click me"') } }));
    expect(clicked).toContain('button "Clicked 1 times"');
    const snapB = text(await b.callTool({ name: 'browser_snapshot', arguments: {} }));
    expect(snapB).toContain('textbox "Name"');
    expect(snapB).not.toContain('Click me');

    // Console messages reach only the session whose page logged them.
    await a.callTool({ name: 'browser_evaluate', arguments: { function: "() => console.log('alpha says hi')" } });
    const consoleB = text(await b.callTool({ name: 'browser_console_messages', arguments: { level: 'debug' } }));
    expect(consoleB).not.toContain('alpha says hi');
    const consoleA = text(await a.callTool({ name: 'browser_console_messages', arguments: { level: 'debug' } }));
    expect(consoleA).toContain('alpha says hi');

    // Each client's tabs sit in a group named after it.
    const groups = await control.evaluate(() =>
      (globalThis as unknown as { chrome: { tabGroups: { query(q: object): Promise<Array<{ title?: string }>> } } }).chrome.tabGroups.query({}),
    );
    expect(groups.map((g) => g.title).sort()).toEqual(['Agent Alpha', 'Agent Beta']);

    // Naming the other session's tab is refused by the daemon.
    const daemon = (gw.backend as ExtensionBackend).daemonForTests;
    const sessions = gw.registry.ids();
    const tabOf = async (id: string) => (await daemon.router.getSession(id))?.currentTabId;
    const [s1, s2] = sessions;
    const foreignTab = await tabOf(s2!);
    expect(foreignTab).toBeDefined();
    await expect(daemon.router.dispatch(s1!, { name: 'browser_snapshot', payload: {}, tabId: foreignTab! })).rejects.toThrow(/owned by another session/);

    // Chrome stops the idle worker; it comes back (here: the popup opens) and both sessions carry on with their tabs.
    await stopExtensionWorker(helper, EXTENSION_ID);
    await expect.poll(async () => ((await (await fetch(`${gw.url}/health`)).json()) as { browser: { connected: boolean } }).browser.connected).toBe(false);
    await helper.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
    await expect
      .poll(async () => ((await (await fetch(`${gw.url}/health`)).json()) as { browser: { connected: boolean } }).browser.connected, { timeout: 20_000 })
      .toBe(true);
    expect(text(await a.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('button "Clicked 1 times"');
    expect(text(await b.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('textbox "Name"');

    // The popup, as the user sees it: connected, with both agents.
    await helper.reload();
    await helper.waitForFunction(() => document.getElementById('state-text')?.textContent === 'Connected');
    const popupText = await helper.evaluate(() => document.body.innerText);
    expect(popupText).toContain('Connected');
    expect(popupText).toContain('Agent Alpha');
    expect(popupText).toContain('Agent Beta');
    await mkdir(ARTIFACTS, { recursive: true });
    await helper.setViewport({ width: 360, height: 300 });
    await helper.screenshot({ path: join(ARTIFACTS, 'extension-popup.png') });
    expect((await stat(join(ARTIFACTS, 'extension-popup.png'))).size).toBeGreaterThan(1000);

    const pages = await browser.pages();
    expect(pages.some((p) => p.url() === server.url('/index.html'))).toBe(true);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('--extension with MCP 2026-07-28', () => {
  it("runs stateless requests in the person's browser: one tab group for the key, the page kept between requests, no session left behind", async () => {
    const daemon = (gw.backend as ExtensionBackend).daemonForTests;
    const [mcpSessions, daemonSessions] = [gw.registry.size, (await daemon.router.stats()).sessions];
    const client = await modernClient(gw.url, gw.apiKey!);
    await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    const snapshot = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
    expect(text(await client.callTool({ name: 'browser_click', arguments: { target: refIn(snapshot, 'button "Click me"') } }))).toContain(
      'button "Clicked 1 times"',
    );
    // Each request opened and closed a session of its own; the key's state (its tab, in one group) stayed.
    expect(gw.registry.size).toBe(mcpSessions);
    const groups = await control.evaluate(() =>
      (globalThis as unknown as { chrome: { tabGroups: { query(q: object): Promise<Array<{ title?: string }>> } } }).chrome.tabGroups.query({}),
    );
    expect(groups.filter((g) => g.title === 'modern-client')).toHaveLength(1);
    expect((await daemon.router.stats()).sessions).toBe(daemonSessions + 1);
    await client.close();
  });
});

describe('--extension without a connected browser', () => {
  it('says how to connect one instead of hanging', async () => {
    const backend = await ExtensionBackend.start({ daemonPort: 0, connectWaitMs: 300, pairingSecret: newPairingSecret() });
    try {
      await expect(backend.openSession('lonely', { clientName: 'agent' })).rejects.toThrow(
        /No browser is connected\. Install the browsermcp extension .* and pair it: paste the pairing code browsermcp-gateway printed at start into its popup \(it connects to ws:\/\/127\.0\.0\.1:\d+\/extension\)/,
      );
      expect(backend.browserConnected()).toBe(false);
      // Its daemon serves the extension only: no local process may drive the person's browser past the gateway's key.
      const daemonHttp = backend.extensionUrl.replace('ws://', 'http://').replace('/extension', '');
      const opened = await fetch(`${daemonHttp}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(opened.status).toBe(404);
      expect((await fetch(`${daemonHttp}/commands`, { method: 'POST', headers: { 'x-instance-id': 's' } })).status).toBe(404);
      expect((await fetch(`${daemonHttp}/health`)).status).toBe(200);
    } finally {
      await backend.close();
    }
  });
});

describe('--extension behind a relay where the extension dials (a program on the port it was told, passing all on)', () => {
  it("pairs nothing through it: the gateway refuses a proof made for the relay's address, and the relay reads no session, secret or command", async () => {
    const backend = gw.backend as ExtensionBackend;
    const relay = await startWsRelay(backend.extensionUrl);
    const storage = (values: object) =>
      control.evaluate(
        (v: object) => (globalThis as unknown as { chrome: { storage: { local: { set(v: object): Promise<void> } } } }).chrome.storage.local.set(v),
        values,
      );
    try {
      // The extension holds the secret for the relay's address (the relay squats where its code says the daemon is).
      const { secret } = (parsePairingCode(backend.pairingCode) as { ok: true; value: { secret: Uint8Array } }).value;
      await storage({ daemonUrl: relay.address, pairingCode: formatPairingCode({ url: relay.address, secret }) });
      await expect.poll(() => relay.seen(), { timeout: 15_000 }).toContain("this browser's pairing was made for another address");
      const popup = await openExtensionPage(browser, EXTENSION_ID, 'popup.html');
      try {
        await expect
          .poll(() => popup.evaluate(() => document.getElementById('error')?.textContent ?? ''), { timeout: 10_000 })
          .toContain('did not accept this pairing code');
      } finally {
        await popup.close();
      }
      // What the relay carried: the question, the extension's proof for the relay's address, the refusal. Nothing
      // of a session.
      expect(relay.seen()).not.toContain('"authenticated"');
      expect(relay.seen()).not.toContain('session_opened');
      expect(relay.seen()).not.toContain('"hello"');
    } finally {
      await storage({ daemonUrl: backend.extensionUrl, pairingCode: backend.pairingCode, paused: false });
      relay.close();
      await expect.poll(() => backend.browserConnected(), { timeout: 15_000 }).toBe(true);
    }
  });
});
