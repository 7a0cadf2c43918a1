import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hs256Verifier, signToken, startDaemon, type RunningDaemon } from '@browsermcp/daemon';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, refIn, startGateway, text } from './helpers.js';

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';

let daemon: RunningDaemon;
let server: FixtureServer;
let daemonUrl: string;

beforeAll(async () => {
  [daemon, server] = await Promise.all([
    startDaemon({
      host: '127.0.0.1',
      port: 0,
      local: { outputDir: join(tmpdir(), 'bmcp-remote-test'), headless: true },
      verifier: hs256Verifier(SECRET),
    }),
    startFixtureServer(),
  ]);
  daemonUrl = `${daemon.address.replace(/^http/, 'ws')}/mcp`;
});
afterAll(async () => {
  await daemon?.close();
  await server?.close();
});

describe('--daemon-url: a remote daemon through the proxy protocol', () => {
  it("keeps the daemon operator's tool settings where the gateway's user set none, and the user's where they did", async () => {
    // The operator's browsermcp-daemon --snapshot-mode none: action answers carry no snapshot.
    const operated = await startDaemon({
      host: '127.0.0.1',
      port: 0,
      local: { outputDir: join(tmpdir(), 'bmcp-remote-operated'), headless: true },
      verifier: hs256Verifier(SECRET),
      sessionSettings: { snapshotMode: 'none' },
    });
    const token = await signToken({ userId: 'alice', secret: SECRET });
    const url = `${operated.address.replace(/^http/, 'ws')}/mcp`;
    const [plain, asking] = [
      await startGateway(['--daemon-url', url, '--daemon-token', token]),
      await startGateway(['--daemon-url', url, '--daemon-token', token, '--snapshot-mode', 'full']),
    ];
    try {
      const [a, b] = [await connectClient(plain), await connectClient(asking)];
      const navigated = async (client: typeof a) => text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }));
      // The gateway's default is not a choice: the daemon's own setting holds.
      expect(await navigated(a)).not.toContain('### Snapshot');
      // A value the gateway's user set is asked for, and the daemon takes it (not a limit).
      expect(await navigated(b)).toContain('### Snapshot');
      await Promise.all([a.close(), b.close()]);
    } finally {
      await Promise.all([plain.close(), asking.close()]);
      await operated.close();
    }
  });

  it("runs navigate, snapshot and click on the daemon's browser with a valid token", async () => {
    const token = await signToken({ userId: 'alice', secret: SECRET });
    const gw: RunningHttpGateway = await startGateway(['--daemon-url', daemonUrl, '--daemon-token', token]);
    const health = async () => ((await (await fetch(`${gw.url}/health`)).json()) as { browser: { connected: boolean } }).browser.connected;
    try {
      // No session yet: nothing is connected to a browser over there.
      expect(await health()).toBe(false);
      const client = await connectClient(gw);
      const nav = text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }));
      expect(nav).toContain('- Page Title: Fixture home');
      expect(await health()).toBe(true);
      const snap = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
      const clicked = text(await client.callTool({ name: 'browser_click', arguments: { target: refIn(snap, 'button "Click me"') } }));
      expect(clicked).toContain('button "Clicked 1 times"');
      expect((await daemon.router.stats()).sessions).toBe(1);
      // DELETE ends the MCP session, which ends the daemon session and closes its tabs there.
      await (client.transport as import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport).terminateSession();
      await client.close();
      await expect.poll(async () => (await daemon.router.stats()).sessions).toBe(0);
      expect(await health()).toBe(false);
    } finally {
      await gw.close();
    }
  });

  it("answers a forged token with the daemon's refusal as a tool error", async () => {
    const forged = await signToken({ userId: 'mallory', secret: 'another-secret-of-at-least-32-bytes!!' });
    const gw = await startGateway(['--daemon-url', daemonUrl, '--daemon-token', forged]);
    try {
      const client = await connectClient(gw);
      const result = await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/signature|token/i);
      await client.close();
    } finally {
      await gw.close();
    }
  });

  it('cancels a call on the daemon: the MCP cancellation travels as notifications/cancelled and the session goes on', async () => {
    const token = await signToken({ userId: 'alice', secret: SECRET });
    const gw = await startGateway(['--daemon-url', daemonUrl, '--daemon-token', token]);
    try {
      const client = await connectClient(gw);
      await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      const waiting = new AbortController();
      const wait = client.callTool({ name: 'browser_wait_for', arguments: { time: 60 } }, undefined, { signal: waiting.signal });
      await expect.poll(async () => (await daemon.router.stats()).pending, { timeout: 10_000 }).toBe(1);
      waiting.abort('stop waiting');
      await expect(wait).rejects.toThrow(/stop waiting/);
      // The daemon stopped it: nothing pending there, and the next call runs at once rather than behind a 60 s wait.
      await expect.poll(async () => (await daemon.router.stats()).pending, { timeout: 10_000 }).toBe(0);
      expect(text(await client.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('- Page Title: Fixture home');
      await client.close();
    } finally {
      await gw.close();
    }
  });
});
