import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway, text } from './helpers.js';

// Requests a page gets the browser to make outside its tab, which the tab's interception never sees: speculation
// rules (prefetch, prerender) and a SharedWorker's fetch. Without origin lists they go out (the control); with a list,
// the launched browser makes none of them. (The person's browser and a CDP browser: SECURITY.md, known limits.)

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server?.close();
});

const escapes = () =>
  server.visits
    .filter((v) => v.startsWith('blocked.localhost:'))
    .map((v) => v.replace(/^[^/]*/, ''))
    .sort();

/** Opens the page in a session of `gw`, and keeps the session (its tab and workers) while `check` runs. */
async function onSpeculationPage(gw: RunningHttpGateway, check: (snapshot: string) => Promise<void>): Promise<void> {
  const client = await connectClient(gw, 'escapes');
  try {
    await check(text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/speculation.html') } })));
  } finally {
    await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
    await client.close();
  }
}

describe('requests outside the tab', () => {
  it('without origin lists, speculation rules reach another host and a page may start a SharedWorker (the control)', async () => {
    const gw = await startGateway();
    try {
      server.visits.length = 0;
      await onSpeculationPage(gw, async (snapshot) => {
        expect(snapshot).toContain('SharedWorker: started');
        await expect.poll(escapes, { timeout: 15_000 }).toEqual(expect.arrayContaining(['/prefetched', '/prerendered']));
      });
    } finally {
      await gw.close();
    }
  });

  it('with --blocked-origins, the launched browser makes none of them: no speculative loading, no SharedWorker', async () => {
    const gw = await startGateway(['--blocked-origins', 'blocked.localhost']);
    try {
      server.visits.length = 0;
      await onSpeculationPage(gw, async (snapshot) => {
        expect(snapshot).toContain('SharedWorker: not available');
        // Longer than the control needs for all three: nothing arrives.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        expect(escapes()).toEqual([]);
      });
    } finally {
      await gw.close();
    }
  });
});
