import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { FixtureServer } from '@browsermcp/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { refIn, text, useGatewayAndFixtures } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

let gw: RunningHttpGateway;
let server: FixtureServer;

useGatewayAndFixtures((pair) => ({ gw, server } = pair));

async function navigateSnapshotClick(client: Client): Promise<void> {
  const nav = text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }));
  expect(nav).toContain('- Page Title: Fixture home');
  const snap = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
  const clicked = text(await client.callTool({ name: 'browser_click', arguments: { target: refIn(snap, 'button "Click me"') } }));
  expect(clicked).toContain('button "Clicked 1 times"');
}

describe('legacy HTTP+SSE', () => {
  it('runs navigate, snapshot and click with the SDK SSE client', async () => {
    const auth = { Authorization: `Bearer ${gw.apiKey}` };
    const transport = new SSEClientTransport(new URL(`${gw.url}/sse`), {
      requestInit: { headers: auth },
      eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...auth } }) },
    });
    const client = new Client({ name: 'sse-client', version: '1' });
    await client.connect(transport);
    await navigateSnapshotClick(client);
    await client.close();
  });

  it('announces the endpoint and session id, and answers POSTs with 202 accepted', async () => {
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/sse`, { headers: { authorization: `Bearer ${gw.apiKey}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-session-id')!;
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain(`event: endpoint\ndata: /message?sessionId=${id}`);
    const post = (body: string, sessionId = id) =>
      fetch(`${gw.url}/message?sessionId=${sessionId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
        body,
      });
    const ok = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    expect(ok.status).toBe(202);
    expect(await ok.json()).toEqual({ status: 'accepted' });
    const invalid = await post(JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'ping' }));
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: { code: number } }).error.code).toBe(-32600);
    expect((await post('{', id)).status).toBe(400);
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), 'unknown')).status).toBe(404);
    controller.abort();
  });
});

describe('stdio', () => {
  it('runs navigate, snapshot and click with the SDK stdio client, and leaves no browser behind', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--headless'], stderr: 'pipe' });
    const client = new Client({ name: 'stdio-client', version: '1' });
    await client.connect(transport);
    await navigateSnapshotClick(client);
    const pid = transport.pid!;
    const children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map(Number);
    expect(children.length).toBeGreaterThan(0);
    await client.close();
    const alive = (p: number) => {
      try {
        process.kill(p, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(() => children.filter(alive).length, { timeout: 10_000 }).toBe(0);
  });

  it('refuses the flags of MCP over HTTP, naming them and the fix, before starting anything', async () => {
    const child = spawn(process.execPath, [CLI, '--headless', '--api-key', 'key-of-a-stdio-client-0123'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (err += d));
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(err).toContain(
      '--api-key applies to MCP over HTTP (--port): over stdio the client starts the gateway and talks to it alone. Add --port <port>, or drop it.',
    );
  });

  it('answers malformed JSON with -32700', async () => {
    const child = spawn(process.execPath, [CLI, '--headless'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    // Both lines, then the end of input: the gateway answers each line as it reads it, then shuts down. Waiting for
    // its exit (not a deadline) keeps a slow start on a busy machine from failing the test.
    child.stdin.end('{not json\n{"jsonrpc":"2.0","id":"x","method":7}\n');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    const [parse, invalid, ...rest] = out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: unknown; error: { code: number; message: string } });
    expect(rest).toEqual([]);
    expect(parse!.error.code).toBe(-32700);
    expect(parse!.id).toBeNull();
    expect(invalid!.error.code).toBe(-32600);
    expect(invalid!.id).toBe('x');
  });
});
