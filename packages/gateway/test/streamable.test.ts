import type { FixtureServer } from '@browsermcp/testkit';
import { describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, hostOf, refIn, startGateway, text, useGatewayAndFixtures } from './helpers.js';

let gw: RunningHttpGateway;
let server: FixtureServer;

useGatewayAndFixtures((pair) => ({ gw, server } = pair));

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

interface ErrorBody {
  error: { code: number; message: string };
}
const json = async (res: Response) => (await res.json()) as ErrorBody;

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${gw.apiKey}`,
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function openRawSession(): Promise<string> {
  const res = await post(INIT);
  expect(res.status).toBe(200);
  const id = res.headers.get('mcp-session-id')!;
  await res.text();
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });
  return id;
}

describe('Streamable HTTP with the official SDK client', () => {
  it('lists the tools and runs navigate, snapshot and click on a real page', async () => {
    const client = await connectClient(gw);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('browser_navigate');
    expect(names).toContain('browser_find');
    expect(tools.find((t) => t.name === 'browser_click')?.annotations?.destructiveHint).toBe(true);
    const nav = text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }));
    expect(nav).toContain('- Page Title: Fixture home');
    const snap = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
    const clicked = text(await client.callTool({ name: 'browser_click', arguments: { target: refIn(snap, 'button "Click me"') } }));
    expect(clicked).toContain('button "Clicked 1 times"');
    await client.close();
  });

  it('sends progress notifications while a call waits, when the client asks for them (every --progress-interval)', async () => {
    const quick = await startGateway(['--progress-interval', '1']);
    try {
      const client = await connectClient(quick);
      const progress: Array<{ progress: number; message?: string }> = [];
      const waited = await client.callTool({ name: 'browser_wait_for', arguments: { time: 2.5 } }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      expect(waited.isError).toBeFalsy();
      // The gateway's first call starts its browser, and says so: still starting at the first notification when the
      // launch takes longer than the interval (a busy machine), started by then otherwise.
      expect(progress.slice(0, 2)).toEqual([
        { progress: 1, message: expect.stringMatching(/^browser_wait_for is still running \([12] s\)(: Starting the browser|: The browser started)?$/) },
        { progress: 2, message: expect.stringMatching(/^browser_wait_for is still running \([23] s\)(: Starting the browser|: The browser started)?$/) },
      ]);
      // None without a progressToken.
      const silent: unknown[] = [];
      client.fallbackNotificationHandler = async (n) => void silent.push(n);
      await client.callTool({ name: 'browser_wait_for', arguments: { time: 1.5 } });
      expect(silent).toEqual([]);
      await client.close();
    } finally {
      await quick.close();
    }
  });

  it('refuses a --progress-interval out of range, naming it', async () => {
    await expect(startGateway(['--progress-interval', '0'])).rejects.toThrow(/--progress-interval/);
  });

  it('answers bad tool arguments with an isError result and unknown tools with a protocol error', async () => {
    const client = await connectClient(gw);
    const bad = await client.callTool({ name: 'browser_navigate', arguments: { url: 7 } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('Invalid arguments for browser_navigate: "url"');
    // One clean message: the code once, then the sentence (not "MCP error -32602: MCP error -32602: …").
    await expect(client.callTool({ name: 'browser_teleport', arguments: {} })).rejects.toThrow(
      /^MCP error -32602: Unknown tool "browser_teleport". List the tools with tools\/list.$/,
    );
    await client.close();
  });

  it('keeps two concurrent sessions apart: own pages, own cookies', async () => {
    const [a, b] = await Promise.all([connectClient(gw, 'agent-a'), connectClient(gw, 'agent-b')]);
    await Promise.all([
      a.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } }),
      b.callTool({ name: 'browser_navigate', arguments: { url: server.url('/dialogs.html') } }),
    ]);
    await a.callTool({ name: 'browser_evaluate', arguments: { function: "() => { document.cookie = 'who=agent-a; path=/'; }" } });
    const [ta, tb] = await Promise.all([
      a.callTool({ name: 'browser_navigate', arguments: { url: server.url('/echo-cookie') } }),
      b.callTool({ name: 'browser_navigate', arguments: { url: server.url('/echo-cookie') } }),
    ]);
    expect(text(ta)).toContain('who=agent-a');
    expect(text(tb)).not.toContain('who=agent-a');
    const listA = text(await a.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }));
    expect(listA.match(/^- \d+:/gm)).toHaveLength(1);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('HTTP statuses', () => {
  it('401 without a key, with WWW-Authenticate; 403 with a wrong one', async () => {
    const none = await post(INIT, { authorization: '' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await json(none)).error.message).toContain('Missing API key');
    const wrong = await post(INIT, { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(403);
    expect((await json(wrong)).error.message).toContain('Wrong API key');
  });

  it('answers /.well-known/* 404 without a key, so MCP clients ask for the bearer key instead of starting OAuth', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server']) {
      const res = await fetch(`${gw.url}${path}`);
      expect(res.status, path).toBe(404);
      await res.body?.cancel();
    }
    // Only reading them is public.
    expect(
      (await fetch(`${gw.url}/.well-known/oauth-protected-resource`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(401);
  });

  it('never takes the key from the query string', async () => {
    const res = await fetch(`${gw.url}/mcp?apiKey=${gw.apiKey}&token=${gw.apiKey}`, {
      method: 'POST',
      body: JSON.stringify(INIT),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(401);
  });

  it('403 for a foreign Host (DNS rebinding) and for a web page Origin', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${gw.url}/mcp`,
        { method: 'POST', headers: { host: 'evil.example', authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(INIT));
    });
    expect(status).toBe(403);
    const origin = await post(INIT, { origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    expect((await json(origin)).error.message).toContain('--cors-origins');
    expect(hostOf(gw)).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('--allowed-hosts: a name matches on any port (a port given is ignored), and "*" turns the Host check off', async () => {
    const { request } = await import('node:http');
    // /tools (not /health, which answers any Host for load balancers).
    const statusFor = (target: RunningHttpGateway, host: string) =>
      new Promise<number>((resolve, reject) => {
        request(`${target.url}/tools`, { headers: { host, authorization: `Bearer ${target.apiKey}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .once('error', reject)
          .end();
      });
    const named = await startGateway(['--allowed-hosts', 'Browser.Example.com:3463']);
    try {
      expect(await statusFor(named, 'browser.example.com:443')).toBe(200);
      expect(await statusFor(named, 'evil.example:443')).toBe(403);
    } finally {
      await named.close();
    }
    const any = await startGateway(['--allowed-hosts', '*']);
    try {
      expect(await statusFor(any, 'whatever.example')).toBe(200);
    } finally {
      await any.close();
    }
  });

  it('400 for a request without a session, 404 for an unknown session', async () => {
    const noSession = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(noSession.status).toBe(400);
    expect((await json(noSession)).error.message).toContain('Mcp-Session-Id header is required');
    const unknown = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-11-25' });
    expect(unknown.status).toBe(404);
  });

  it('400 for an unsupported protocol version, -32700 for bad JSON, 413 for a huge body, 405 for PUT', async () => {
    const id = await openRawSession();
    const version = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': id, 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
    const parse = await post('{"jsonrpc": ', { 'mcp-session-id': id });
    expect(parse.status).toBe(400);
    expect((await json(parse)).error.code).toBe(-32700);
    const huge = await post(
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'browser_type', arguments: { target: 'e1', text: 'x'.repeat(2_000_000) } } },
      { 'mcp-session-id': id },
    );
    expect(huge.status).toBe(413);
    const put = await fetch(`${gw.url}/mcp`, { method: 'PUT', headers: { authorization: `Bearer ${gw.apiKey}` } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('answers a body nested 100,000 levels deep with an invalid-request error, never a 500, on every endpoint that takes JSON', async () => {
    const id = await openRawSession();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const deepArgs = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"browser_evaluate","arguments":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}}`;
    for (const [body, headers] of [
      [deep, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }],
      [deepArgs, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }],
      // No session: the 2026-07-28 handler reads it too.
      [deep, { 'mcp-protocol-version': '2026-07-28' }],
    ] as const) {
      const res = await post(body, headers);
      expect(res.status).toBe(400);
      const answer = await json(res);
      expect(answer.error.code).toBe(-32600);
      expect(answer.error.message).toContain('nests deeper than 64 levels');
    }
    // The legacy SSE endpoint's messages too.
    const message = await fetch(`${gw.url}/message?sessionId=none`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
      body: deep,
    });
    expect(message.status).toBe(400);
    // And the session still answers.
    const list = await post({ jsonrpc: '2.0', id: 10, method: 'tools/list' }, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });
    expect(list.status).toBe(200);
  });

  it('202 for notifications, and session ids carry at least 128 random bits', async () => {
    const res = await post(INIT);
    const id = res.headers.get('mcp-session-id')!;
    await res.text();
    expect(Buffer.from(id, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });
    expect(note.status).toBe(202);
  });

  it('refuses batches for protocol versions that dropped them, judged by the version the session agreed', async () => {
    const id = await openRawSession();
    const batch = await post([{ jsonrpc: '2.0', id: 5, method: 'tools/list' }], { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });
    expect(batch.status).toBe(400);
    expect((await json(batch)).error.message).toContain('batches are not allowed in protocol version 2025-11-25');
    // A request that claims the older version does not reopen batches in this session, nor does leaving the header out.
    const claimed = await post([{ jsonrpc: '2.0', id: 6, method: 'tools/list' }], { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' });
    expect(claimed.status).toBe(400);
    expect((await json(claimed)).error.message).toContain('batches are not allowed in protocol version 2025-11-25');
    const bare = await post([{ jsonrpc: '2.0', id: 7, method: 'tools/list' }], { 'mcp-session-id': id });
    expect(bare.status).toBe(400);
    const empty = await post([], { 'mcp-session-id': id });
    expect(empty.status).toBe(400);
    expect((await json(empty)).error).toMatchObject({ code: -32600, message: expect.stringContaining('must not be empty') as unknown });
  });

  it('takes batches in a session that agreed 2025-03-26', async () => {
    const res = await post({ ...INIT, params: { ...INIT.params, protocolVersion: '2025-03-26' } });
    const id = res.headers.get('mcp-session-id')!;
    await res.text();
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' });
    const batch = await post([{ jsonrpc: '2.0', id: 8, method: 'tools/list' }], { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' });
    expect(batch.status).toBe(200);
    expect(await batch.text()).toContain('browser_navigate');
    const empty = await post([], { 'mcp-session-id': id, 'mcp-protocol-version': '2025-03-26' });
    expect(empty.status).toBe(400);
  });

  it('health answers without auth and leaks no secrets', async () => {
    const res = await fetch(`${gw.url}/health`);
    const body = (await res.json()) as { activeSessions: unknown };
    expect(body).toMatchObject({ status: 'ok', browser: { mode: 'launch' } });
    expect(typeof body.activeSessions).toBe('number');
    expect(JSON.stringify(body)).not.toContain(gw.apiKey!);
    const tools = await fetch(`${gw.url}/tools`);
    expect(tools.status).toBe(401);
  });
});

describe('session lifecycle', () => {
  it('DELETE ends the session and answers once its tabs are closed', async () => {
    const client = await connectClient(gw);
    await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    const browser = await (gw.backend as unknown as { executor: { browser: { get(): Promise<import('puppeteer-core').Browser> } } }).executor.browser.get();
    const countPages = async () => (await browser.pages()).filter((p) => p.url().includes('/index.html')).length;
    const before = await countPages();
    expect(before).toBeGreaterThan(0);
    const transport = client.transport as import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
    await transport.terminateSession();
    // DELETE is answered once the tabs are closed.
    expect(await countPages()).toBe(before - 1);
    await client.close();
  });
});
