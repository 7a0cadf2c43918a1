import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDaemon, type RunningDaemon } from '@browsermcp/daemon';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startGateway, text } from './helpers.js';

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server?.close();
});

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('several API keys', () => {
  it('binds a session to the key that opened it: another valid key gets 404', async () => {
    const gw = await startGateway(['--api-key', 'key-of-alice-0123456789,key-of-bob-0123456789']);
    try {
      const post = (key: string, body: string, sessionId?: string) =>
        fetch(`${gw.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${key}`,
            'mcp-protocol-version': '2025-11-25',
            ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
          },
          body,
        });
      const opened = await post('key-of-alice-0123456789', INIT);
      const id = opened.headers.get('mcp-session-id')!;
      await opened.text();
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
      const bob = await post('key-of-bob-0123456789', ping, id);
      expect(bob.status).toBe(404);
      const alice = await post('key-of-alice-0123456789', ping, id);
      expect(alice.status).toBe(200);
      await alice.text();
    } finally {
      await gw.close();
    }
  });
});

describe('restarts', () => {
  let daemon: RunningDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ host: '127.0.0.1', port: 0, local: { outputDir: join(tmpdir(), 'bmcp-restart'), headless: true } });
  });
  afterAll(async () => {
    await daemon?.close();
  });

  it('a gateway restarted in front of a running daemon: the client gets 404, re-initializes and carries on', async () => {
    const daemonUrl = `${daemon.address.replace(/^http/, 'ws')}/mcp`;
    const key = 'restart-key-0123456789abcdef';
    const first = await startGateway(['--daemon-url', daemonUrl, '--api-key', key]);
    const port = new URL(first.url).port;
    const client = await connectClient(first, 'survivor');
    const before = text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }));
    expect(before).toContain('- Page Title: Fixture home');
    await first.close();
    // The gateway is down until the port refuses connections; any pooled keep-alive socket to it is gone by then.
    for (let i = 0; i < 100; i++) {
      const refused = await fetch(`${first.url}/health`).then(
        () => false,
        (e: { cause?: { code?: string } }) => e.cause?.code === 'ECONNREFUSED',
      );
      if (refused) break;
    }
    const second = await startGateway(['--daemon-url', daemonUrl, '--api-key', key, '--port', port]);
    try {
      // The new gateway does not know the old session: 404, which tells the client to start a new one.
      const gone = await client.callTool({ name: 'browser_snapshot', arguments: {} }).catch((e: unknown) => e);
      expect(gone).toBeInstanceOf(StreamableHTTPError);
      expect((gone as StreamableHTTPError).code).toBe(404);
      const again = await connectClient(second, 'survivor');
      const after = text(await again.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } }));
      expect(after).toContain('- Page Title: Form');
      await again.close();
    } finally {
      await second.close();
    }
  });
});
