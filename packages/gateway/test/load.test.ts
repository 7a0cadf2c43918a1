import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedBackend, RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway, text } from './helpers.js';

const SESSIONS = 50;
const ROUNDS = 10; // × 4 calls = 40 calls per session

let gw: RunningHttpGateway;
let server: FixtureServer;

beforeAll(async () => {
  [gw, server] = await Promise.all([startGateway(['--log-level', 'error']), startFixtureServer()]);
});
afterAll(async () => {
  await gw?.close();
  await server?.close();
});

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

/** One agent: 40 calls on its own page, each checked against what only its page can show. */
async function agent(client: Client, n: number): Promise<number> {
  const own = server.url(`/index.html?s=${n}`);
  let calls = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const nav = text(await client.callTool({ name: 'browser_navigate', arguments: { url: own } }));
    expect(nav).toContain(`- Page URL: ${own}`);
    const click = text(await client.callTool({ name: 'browser_click', arguments: { target: '#counter' } }));
    expect(click).toContain('button "Clicked 1 times"');
    const snap = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
    expect(snap).toContain('button "Clicked 1 times"');
    const where = text(await client.callTool({ name: 'browser_evaluate', arguments: { function: '() => location.search' } }));
    expect(where).toContain(`"?s=${n}"`);
    calls += 4;
  }
  return calls;
}

describe('load', () => {
  it(`${SESSIONS} concurrent sessions × ${ROUNDS * 4} calls: every answer goes to its own session, nothing is left behind`, async () => {
    // Warm up (browser launch, code paths) before taking the memory baseline.
    const warm = await connectClient(gw, 'warm-up');
    await agent(warm, 999);
    await (warm.transport as StreamableHTTPClientTransport).terminateSession();
    await warm.close();
    const baseline = heapMb();

    const clients = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => connectClient(gw, `agent-${i}`)));
    const counts = await Promise.all(clients.map((c, i) => agent(c, i)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(SESSIONS * ROUNDS * 4);

    await Promise.all(clients.map((c) => (c.transport as StreamableHTTPClientTransport).terminateSession()));
    await Promise.all(clients.map((c) => c.close()));
    const health = (await (await fetch(`${gw.url}/health`)).json()) as { activeSessions: number };
    expect(health.activeSessions).toBe(0);

    const browser: Browser = await (gw.backend as EmbeddedBackend).executor.browser.get();
    // Only the browser's own default context remains, with no page of any session: DELETE answered after closing them.
    expect(browser.browserContexts().length).toBe(1);
    const leftovers = (await browser.pages()).filter((p) => p.url().includes('/index.html'));
    expect(leftovers).toHaveLength(0);
    expect((await (gw.backend as EmbeddedBackend).router.stats()).sessions).toBe(0);

    const after = heapMb();
    expect(after - baseline).toBeLessThan(60);
  }, 300_000);
});
