import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer, testChromePath, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway, text } from './helpers.js';

let gw: RunningHttpGateway;
let server: FixtureServer;

beforeAll(async () => {
  [gw, server] = await Promise.all([startGateway(['--session-idle-timeout', '1', '--cors-origins', 'http://app.example']), startFixtureServer()]);
});
afterAll(async () => {
  await gw?.close();
  await server?.close();
});

const headers = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${gw.apiKey}`,
  ...extra,
});
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

async function rawSession(extra: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: headers(extra), body: INIT });
  const id = res.headers.get('mcp-session-id')!;
  await res.text();
  await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: headers({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25', ...extra }),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return id;
}

async function call(id: string, name: string, args: unknown, reqId = 2): Promise<Response> {
  return fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: headers({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }),
    body: JSON.stringify({ jsonrpc: '2.0', id: reqId, method: 'tools/call', params: { name, arguments: args } }),
  });
}

describe('limits and lifecycle', () => {
  it('does not expire a session while one of its calls is still running', async () => {
    const id = await rawSession();
    // The idle timeout is 1 s: a 2.5 s call outlives it, and its answer must still come.
    const res = await call(id, 'browser_wait_for', { time: 2.5 });
    expect(await res.text()).toContain('Waited for 2.5 s');
    const after = await call(id, 'browser_tabs', { action: 'list' }, 3);
    expect(after.status).toBe(200);
    await after.text();
    const ended = await fetch(`${gw.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${gw.apiKey}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(ended.status).toBe(200);
  });

  it('closes a session whose client vanished, and its tabs', async () => {
    const id = await rawSession();
    const res = await call(id, 'browser_navigate', { url: server.url('/index.html') });
    expect(await res.text()).toContain('Fixture home');
    const health = async () => ((await (await fetch(`${gw.url}/health`)).json()) as { activeSessions: number }).activeSessions;
    expect(await health()).toBe(1);
    await expect.poll(health, { timeout: 10_000, interval: 200 }).toBe(0);
    const after = await call(id, 'browser_snapshot', {});
    expect(after.status).toBe(404);
  });

  it('replays what a dropped stream missed when the client resumes with Last-Event-ID', async () => {
    const id = await rawSession();
    const res = await call(id, 'browser_wait_for', { time: 1 }, 7);
    const reader = res.body!.getReader();
    // The first event primes the stream with an id to resume from; then the connection drops.
    const first = new TextDecoder().decode((await reader.read()).value);
    const eventId = /^id: (.+)$/m.exec(first)![1]!;
    await reader.cancel();
    const resume = () =>
      fetch(`${gw.url}/mcp`, {
        headers: { ...headers({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25', 'last-event-id': eventId }), accept: 'text/event-stream' },
      });
    // Like a real client, retry while the server has not yet seen the old connection go (409).
    let resumed = await resume();
    for (let i = 0; resumed.status === 409 && i < 50; i++) {
      await resumed.text();
      await new Promise((r) => setTimeout(r, 20));
      resumed = await resume();
    }
    expect(resumed.status).toBe(200);
    const resumedReader = resumed.body!.getReader();
    let body = '';
    while (!body.includes('"id":7')) body += new TextDecoder().decode((await resumedReader.read()).value);
    expect(body).toContain('Waited for 1 s');
    await resumedReader.cancel();
  });

  it('answers a listed web origin with CORS headers, also on hijacked MCP replies', async () => {
    const preflight = await fetch(`${gw.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-session-id',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://app.example');
    const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: headers({ origin: 'http://app.example' }), body: INIT });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.example');
    expect(res.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
    await res.text();
  });

  it('rate limits failed keys per address with 429 and Retry-After', async () => {
    const tries: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: headers({ authorization: `Bearer guess-${i}` }), body: INIT });
      tries.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        // A JSON-RPC error answer like every other refusal: the code and words a client can act on.
        expect(await res.json()).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32017, message: expect.stringMatching(/^Too many requests: try again in \d+ s\.$/) },
        });
      } else {
        await res.text();
      }
    }
    expect(tries.slice(0, 10).every((s) => s === 403)).toBe(true);
    expect(tries.slice(10)).toEqual([429, 429]);
  });

  it('--trust-proxy: behind a reverse proxy the limits count the client in X-Forwarded-For, not the proxy', async () => {
    const guesses = async (target: RunningHttpGateway, client: string, n: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) {
        const res = await fetch(`${target.url}/mcp`, {
          method: 'POST',
          headers: { ...headers({ authorization: `Bearer guess-${i}` }), 'x-forwarded-for': client },
          body: INIT,
        });
        await res.text();
        statuses.push(res.status);
      }
      return statuses;
    };
    const proxied = await startGateway(['--trust-proxy', 'loopback']);
    try {
      // One client spends its budget of 10; another client behind the same proxy still has its own.
      expect((await guesses(proxied, '203.0.113.7', 11)).at(-1)).toBe(429);
      expect(await guesses(proxied, '198.51.100.9', 1)).toEqual([403]);
    } finally {
      await proxied.close();
    }
    // Without it, the header is not believed (a client could send any): both are the proxy's one address.
    const direct = await startGateway();
    try {
      expect((await guesses(direct, '203.0.113.7', 11)).at(-1)).toBe(429);
      expect(await guesses(direct, '198.51.100.9', 1)).toEqual([429]);
    } finally {
      await direct.close();
    }
  });

  it('rate limits failed keys from many addresses together: each new address does not bring a new budget', async () => {
    const own = await startGateway();
    const port = Number(new URL(own.url).port);
    const guess = (address: string, i: number) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            localAddress: address,
            method: 'POST',
            path: '/mcp',
            headers: { ...headers({ authorization: `Bearer guess-${i}` }), host: `127.0.0.1:${port}` },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(INIT);
      });
    try {
      const statuses: number[] = [];
      // 15 addresses × 8 guesses: under each address's budget of 10, over the 100 of all addresses together.
      for (let a = 2; a < 17; a++) for (let i = 0; i < 8; i++) statuses.push(await guess(`127.0.0.${a}`, i));
      expect(statuses.slice(0, 100).every((s) => s === 403)).toBe(true);
      expect(statuses.slice(100).every((s) => s === 429)).toBe(true);
      // A client with the right key is not locked out by the guessers.
      const ok = await fetch(`${own.url}/mcp`, { method: 'POST', headers: { ...headers(), authorization: `Bearer ${own.apiKey}` }, body: INIT });
      expect(ok.status).toBe(200);
      await ok.text();
    } finally {
      await own.close();
    }
  });

  it('at --max-sessions-per-key closes the key’s least recently used idle session for a new one (its client told why), refuses only when all are busy (429), and --max-sessions (503)', async () => {
    const own = await startGateway(['--api-key', 'key-a-0123456789abcdef,key-b-0123456789abcdef', '--max-sessions-per-key', '2', '--max-sessions', '3']);
    const init = (key: string) => fetch(`${own.url}/mcp`, { method: 'POST', headers: { ...headers(), authorization: `Bearer ${key}` }, body: INIT });
    const open = async (key: string) => {
      const res = await init(key);
      await res.text();
      return res;
    };
    const A = 'key-a-0123456789abcdef';
    const list = (key: string, id: string) =>
      fetch(`${own.url}/mcp`, {
        method: 'POST',
        headers: { ...headers(), authorization: `Bearer ${key}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    /** Holds the session's GET stream open: a client listening for server messages is using its session. */
    const listen = (id: string) => {
      const controller = new AbortController();
      const stream = fetch(`${own.url}/mcp`, {
        headers: {
          accept: 'text/event-stream',
          authorization: `Bearer ${A}`,
          'mcp-session-id': id,
          'mcp-protocol-version': '2025-11-25',
          host: new URL(own.url).host,
        },
        signal: controller.signal,
      });
      return { stream, stop: () => controller.abort() };
    };
    const streams: Array<{ stop(): void }> = [];
    try {
      const a1 = (await open(A)).headers.get('mcp-session-id')!;
      const a2 = (await open(A)).headers.get('mcp-session-id')!;
      // a1 is the least recently used: a new session of key a takes its place instead of being refused.
      await (await list(A, a2)).text();
      const a3res = await open(A);
      expect(a3res.status).toBe(200);
      const a3 = a3res.headers.get('mcp-session-id')!;
      const gone = await list(A, a1);
      expect(gone.status).toBe(404);
      expect(((await gone.json()) as { error: { message: string } }).error.message).toMatch(
        /^Session not found: closed to make room for a new session of the same API key \(--max-sessions-per-key 2\); it was the least recently used, idle for \d+ s\. Start a new one with initialize\.$/,
      );
      // Both of its sessions busy (listening): a third is refused, on either transport.
      for (const id of [a2, a3]) {
        const l = listen(id);
        streams.push(l);
        expect((await l.stream).status).toBe(200);
      }
      const a4 = await init(A);
      expect(a4.status).toBe(429);
      expect(a4.headers.get('retry-after')).toBe('60');
      expect(((await a4.json()) as { error: { message: string } }).error.message).toContain("all busy, the gateway's limit (--max-sessions-per-key)");
      const sse = await fetch(`${own.url}/sse`, { headers: { authorization: `Bearer ${A}`, host: new URL(own.url).host } });
      expect(sse.status).toBe(429);
      await sse.text();
      expect((await open('key-b-0123456789abcdef')).status).toBe(200);
      const full = await init('key-b-0123456789abcdef');
      expect(full.status).toBe(503);
      expect(((await full.json()) as { error: { message: string } }).error.message).toContain('its limit (--max-sessions)');
    } finally {
      for (const s of streams) s.stop();
      await own.close();
    }
  });

  it('clients that open a session, list the tools and go away (no DELETE) never lock their key out', async () => {
    const own = await startGateway(['--max-sessions-per-key', '3']);
    try {
      // As gemini mcp list, mcp-remote, LangChain and the SDK's own close() do: initialize, tools/list, drop.
      for (let i = 0; i < 8; i++) {
        const client = new Client({ name: `lister-${i}`, version: '1' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${own.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${own.apiKey}` } } }),
        );
        expect((await client.listTools()).tools.length).toBeGreaterThan(10);
        await client.close();
      }
      expect(own.registry.size).toBeLessThanOrEqual(3);
    } finally {
      await own.close();
    }
  });

  it("the browser's start does not count against a call's timeout; the call's own work does", async () => {
    // A browser that takes 2 s to start, behind a 1 s command timeout (a loaded machine, a cold disk).
    const dir = await mkdtemp(join(tmpdir(), 'bmcp-slow-start-'));
    const slow = join(dir, 'slow-chromium');
    await writeFile(slow, `#!/bin/sh\nsleep 2\nexec '${testChromePath()}' "$@"\n`, { mode: 0o755 });
    const short = await startGateway(['--command-timeout', '1', '--timeout-navigation', '900', '--executable-path', slow]);
    try {
      const client = await connectClient(short);
      const first = await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      expect(text(first)).toContain('- Page Title: Fixture home');
      const spun = await client.callTool({ name: 'browser_evaluate', arguments: { function: '() => { while (true) {} }' } });
      expect(text(spun)).toContain('browser_evaluate timed out after 1 s and was stopped');
      await client.close();
    } finally {
      await short.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a call that times out is stopped in the browser: its spinning script ends and the next answer says so', async () => {
    // 2 s: the spin outlives any command timeout; a shorter one only ends the wait sooner.
    const short = await startGateway(['--command-timeout', '2', '--timeout-navigation', '1500']);
    try {
      const client = await connectClient(short);
      await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      const spun = await client.callTool({ name: 'browser_evaluate', arguments: { function: '() => { while (true) {} }' } });
      expect(spun.isError).toBe(true);
      expect(text(spun)).toContain('browser_evaluate timed out after 2 s and was stopped; the next answer says what was done to free its tab');
      const next = text(await client.callTool({ name: 'browser_evaluate', arguments: { function: '() => document.title' } }));
      expect(next).toContain('"Fixture home"');
      expect(next).toContain("browser_evaluate ran past the command timeout and was stopped; to free the tab, browsermcp stopped the page's script");
      await client.close();
    } finally {
      await short.close();
    }
  });
});
