import { mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '@browsermcp/gateway';
import { launchTestBrowser, startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import type * as Client from '../src/index.js';
import { startGateway } from './helpers.js';

// A web page in headless Chromium loads the IIFE build and drives the gateway across origins (CORS).
const root = fileURLToPath(new URL('..', import.meta.url));
const IIFE = `${root}dist/index.global.js`;

declare global {
  interface Window {
    BrowserMCP: typeof Client;
  }
}

let fixtures: FixtureServer;
let gw: RunningHttpGateway;
let browser: Browser;
let page: Page;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    files: {
      '/iife.html': `${root}test/iife-page.html`,
      '/browsermcp-client.js': IIFE,
      '/examples/web-demo/index.html': `${root}examples/web-demo/index.html`,
      '/dist/index.global.js': IIFE,
    },
  });
  [gw, browser] = await Promise.all([startGateway(['--cors-origins', fixtures.origin]), launchTestBrowser()]);
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await fixtures?.close();
});

describe('the IIFE build in a real browser', () => {
  it('exposes window.BrowserMCP and drives the gateway from another origin', async () => {
    await page.goto(fixtures.url('/iife.html'));
    const outcome = await page.evaluate(
      async (mcpUrl, key, target) => {
        const { MCPClient, MCPUtils } = window.BrowserMCP;
        const client = new MCPClient(mcpUrl, { headers: { Authorization: `Bearer ${key}` } });
        // A 2025 session from the page too: its Mcp-Session-Id must reach the page.
        const legacy = new MCPClient(mcpUrl, { headers: { Authorization: `Bearer ${key}` }, protocolVersion: '2025-11-25' });
        try {
          const spoken = (await client.connect()).protocolVersion;
          const tools = await client.listTools();
          const nav = await client.call('browser_navigate', { url: target });
          const snapshot = await client.call('browser_snapshot');
          await legacy.connect();
          return {
            version: MCPUtils.getProtocolVersion(),
            spoken,
            tools: tools.length,
            session: client.getSessionId() ?? null,
            legacySession: legacy.getSessionId() ?? null,
            nav: nav.isError,
            snapshot: snapshot.text,
          };
        } finally {
          await Promise.all([client.close(), legacy.close()]);
        }
      },
      `${gw.url}/mcp`,
      gw.apiKey!,
      fixtures.url('/form.html'),
    );
    expect(outcome.version).toBe('2026-07-28');
    // 2026-07-28 from a page: CORS lets its Mcp-Method and Mcp-Name headers through, and there is no session.
    expect(outcome.spoken).toBe('2026-07-28');
    expect(outcome.session).toBeNull();
    expect(outcome.tools).toBeGreaterThan(10);
    // The gateway exposes Mcp-Session-Id to the page through CORS.
    expect(outcome.legacySession).toMatch(/.{16,}/);
    expect(outcome.nav).toBe(false);
    expect(outcome.snapshot).toContain('### Snapshot');
    expect(gw.registry.size).toBe(0);
  });

  it('reports a missing key as unauthorized, and an origin the gateway does not allow as a network error', async () => {
    await page.goto(fixtures.url('/iife.html'));
    const noKey = await page.evaluate(async (mcpUrl) => {
      const error = await new window.BrowserMCP.MCPClient(mcpUrl).connect().catch((e: Client.MCPError) => e);
      return { unauthorized: (error as Client.MCPError).isUnauthorized(), status: (error as Client.MCPError).status };
    }, `${gw.url}/mcp`);
    expect(noKey).toEqual({ unauthorized: true, status: 401 });

    // localhost:<port> is another origin, not in --cors-origins: the browser hides the refusal, fetch just fails.
    await page.goto(fixtures.crossUrl('/iife.html'));
    const wrongOrigin = await page.evaluate(
      async (mcpUrl, key) => {
        const client = new window.BrowserMCP.MCPClient(mcpUrl, { headers: { Authorization: `Bearer ${key}` } });
        const error = (await client.connect().catch((e: Client.MCPError) => e)) as Client.MCPError;
        return error.isNetworkError();
      },
      `${gw.url}/mcp`,
      gw.apiKey!,
    );
    expect(wrongOrigin).toBe(true);
  });

  it('runs the web demo: tools, navigation, snapshot and screenshot, saved as a PNG', async () => {
    const query = new URLSearchParams({ mcp: `${gw.url}/mcp`, key: gw.apiKey!, url: fixtures.url('/'), run: '1' });
    await page.goto(fixtures.url(`/examples/web-demo/index.html?${query}`));
    await page.waitForSelector('#status[data-state="done"], #status[data-state="error"]');
    const status = await page.$eval('#status', (el) => el.textContent);
    expect(status).toMatch(/^Done/);
    expect(await page.$eval('#snapshot', (el) => el.textContent)).toContain('Fixture home');
    expect(await page.$eval('#screenshot', (img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
    expect(await page.$$eval('#tools li', (items) => items.map((li) => li.textContent))).toContain('browser_take_screenshot');
    mkdirSync(`${root}test-results`, { recursive: true });
    const png = `${root}test-results/web-demo.png`;
    await page.screenshot({ path: png, fullPage: true });
    expect(statSync(png).size).toBeGreaterThan(10_000);
  });
});
