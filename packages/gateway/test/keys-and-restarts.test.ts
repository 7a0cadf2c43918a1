import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MCPClient } from '@browsermcp/client';
import { startDaemon, type RunningDaemon } from '@browsermcp/daemon';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from './helpers.js';

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
    const client = new MCPClient(`${first.url}/mcp`, { headers: { Authorization: `Bearer ${key}` } });
    const before = await client.call('browser_navigate', { url: server.url('/index.html') });
    expect(before.text).toContain('- Page Title: Fixture home');
    const oldSession = client.getSessionId();
    await first.close();
    const second = await startGateway(['--daemon-url', daemonUrl, '--api-key', key, '--port', port]);
    try {
      const after = await client.call('browser_navigate', { url: server.url('/form.html') });
      expect(after.text).toContain('- Page Title: Form');
      expect(client.getSessionId()).not.toBe(oldSession);
      await client.close();
    } finally {
      await second.close();
    }
  });
});
