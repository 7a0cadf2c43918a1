/// <reference lib="dom" />
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EXTENSION_ID } from '@browsermcp/daemon';
import { launchExtensionBrowser, openExtensionPage, startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { unzipSync } from 'fflate';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExtensionBackend, RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway, text } from './helpers.js';

// The store package as the Chrome Web Store receives it: unzipped and loaded into Chromium, with the id Chrome gives
// it (not the development build's), connected to a gateway told that id with --extension-id.

const EXTENSION_PACKAGE = dirname(createRequire(import.meta.url).resolve('@browsermcp/extension/package.json'));
const { version } = JSON.parse(readFileSync(join(EXTENSION_PACKAGE, 'package.json'), 'utf8')) as { version: string };
const ZIP = join(EXTENSION_PACKAGE, `browsermcp-extension-${version}.zip`);

let dir: string;
let entries: string[];
let browser: Browser;
let server: FixtureServer;
let storeId: string;

beforeAll(async () => {
  const files = unzipSync(readFileSync(ZIP));
  entries = Object.keys(files);
  dir = mkdtempSync(join(tmpdir(), 'bmcp-store-ext-'));
  for (const [name, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), bytes);
  }
  [browser, server] = await Promise.all([launchExtensionBrowser(dir), startFixtureServer()]);
  const worker = await browser.waitForTarget((t) => t.type() === 'service_worker' && t.url().startsWith('chrome-extension://'));
  storeId = new URL(worker.url()).hostname;
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Points the loaded extension at a gateway's /extension endpoint, as the person does in the options page. */
async function pointAt(gw: RunningHttpGateway): Promise<void> {
  const options = await openExtensionPage(browser, storeId, 'options.html');
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
  await options.close();
}

const connected = async (gw: RunningHttpGateway) => ((await (await fetch(`${gw.url}/health`)).json()) as { browser: { connected: boolean } }).browser.connected;

it('the store zip has relative entries and no development key; Chrome loads it under an id of its own', () => {
  expect(entries).toContain('manifest.json');
  expect(entries).toContain('background.js');
  expect(entries.filter((e) => e.startsWith('/') || e.includes('\\'))).toEqual([]);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { key?: string; manifest_version: number; version: string };
  expect(manifest).not.toHaveProperty('key');
  expect(manifest).toMatchObject({ manifest_version: 3, version });
  expect(storeId).toMatch(/^[a-p]{32}$/);
  expect(storeId).not.toBe(EXTENSION_ID);
});

it('connects to a gateway started with --extension-id <its id>, and drives a tab there; the default gateway refuses it', async () => {
  // The default id only: the handshake of another id is refused before it starts (403 on the upgrade).
  const refusing = await startGateway(['--extension', '--daemon-port', '0']);
  try {
    const url = (refusing.backend as ExtensionBackend).extensionUrl.replace('ws://', 'http://');
    const status = await new Promise<number>((resolve, reject) => {
      const headers = {
        origin: `chrome-extension://${storeId}`,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      };
      const req = request(url, { headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.once('upgrade', (_res, socket) => {
        socket.destroy();
        resolve(101);
      });
      req.once('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  } finally {
    await refusing.close();
  }
  const gw = await startGateway(['--extension', '--daemon-port', '0', '--extension-id', storeId]);
  try {
    await pointAt(gw);
    await expect.poll(() => connected(gw), { timeout: 15_000 }).toBe(true);
    const client = await connectClient(gw, 'Store user');
    try {
      expect(text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }))).toContain('- Page Title: Fixture home');
    } finally {
      await client.close();
    }
  } finally {
    await gw.close();
  }
});
