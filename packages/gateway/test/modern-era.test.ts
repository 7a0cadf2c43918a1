import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { hs256Verifier, signToken, startDaemon, type RunningDaemon } from '@browsermcp/daemon';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, modernClient, refIn, RoundRobin, startGateway, text } from './helpers.js';

// MCP 2026-07-28 on the same /mcp as the 2025 sessions: stateless requests, each taking up its key's browser state,
// so gateways behind a plain round-robin balancer serve one client between them.
const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
const KEYS = ['modern-key-of-alice-0123456789', 'modern-key-of-bob-0123456789ab'];
const MODERN = '2026-07-28';

let daemon: RunningDaemon;
let server: FixtureServer;
let gateways: RunningHttpGateway[];
let balancer: RoundRobin;

/** One raw POST to /mcp, for what the SDK client would never send. */
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } } }> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEYS[0]}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as never };
}

const envelope = (version = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

beforeAll(async () => {
  [daemon, server] = await Promise.all([
    startDaemon({ host: '127.0.0.1', port: 0, local: { outputDir: join(tmpdir(), 'bmcp-modern'), headless: true }, verifier: hs256Verifier(SECRET) }),
    startFixtureServer(),
  ]);
  const token = await signToken({ userId: 'team', secret: SECRET });
  const daemonUrl = `${daemon.address.replace(/^http/, 'ws')}/mcp`;
  gateways = await Promise.all(
    [0, 1].map(() => startGateway(['--daemon-url', daemonUrl, '--daemon-token', token, '--api-key', KEYS.join(','), '--progress-interval', '1'])),
  );
  balancer = await RoundRobin.start(gateways.map((g) => g.url));
});

afterAll(async () => {
  await balancer?.close();
  await Promise.all((gateways ?? []).map((g) => g.close()));
  await daemon?.close();
  await server?.close();
});

describe('MCP 2026-07-28', () => {
  it('serves the official client pinned to 2026-07-28 through two gateways taking requests in turn: navigate, snapshot and click land', async () => {
    const client = await modernClient(balancer.url, KEYS[0]!);
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const before = balancer.served.length;
    const nav = text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }));
    expect(nav).toContain('- Page Title: Fixture home');
    const snap = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
    const clicked = text(await client.callTool({ name: 'browser_click', arguments: { target: refIn(snap, 'button "Click me"') } }));
    expect(clicked).toContain('button "Clicked 1 times"');
    // The three calls went to both gateways, alternately: neither held anything the other needed.
    expect(new Set(balancer.served.slice(before))).toEqual(new Set([0, 1]));
    await client.close();
  });

  it('keeps two keys apart: another key finds a fresh browser state of its own', async () => {
    const alice = await modernClient(balancer.url, KEYS[0]!);
    const bob = await modernClient(balancer.url, KEYS[1]!);
    await alice.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } });
    const bobTabs = text(await bob.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }));
    expect(bobTabs).not.toContain('form.html');
    const aliceTabs = text(await alice.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }));
    expect(aliceTabs).toContain('form.html');
    await Promise.all([alice.close(), bob.close()]);
  });

  it('holds a key to --max-browser-states-per-key: past it browser_state_open is refused, naming the open states, until one closes', async () => {
    const gateway = await startGateway([
      '--daemon-url',
      `${daemon.address.replace(/^http/, 'ws')}/mcp`,
      '--daemon-token',
      await signToken({ userId: 'team', secret: SECRET }),
      '--api-key',
      KEYS[1]!,
      '--max-browser-states-per-key',
      '2',
    ]);
    try {
      const client = await modernClient(gateway.url, KEYS[1]!);
      const open = async () => client.callTool({ name: 'browser_state_open', arguments: {} });
      const handles = [];
      for (let i = 0; i < 2; i++) handles.push(/bs_[A-Za-z0-9_-]{32}/.exec(text(await open()))![0]);
      const refused = await open();
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain('--max-browser-states-per-key 2');
      for (const handle of handles) expect(text(refused)).toContain(handle);
      // The daemon holds no third state: the refusal opened nothing.
      expect(text(await client.callTool({ name: 'browser_state_list', arguments: {} })).match(/bs_/g)).toHaveLength(2);
      await client.callTool({ name: 'browser_state_close', arguments: { browser: handles[0] } });
      const again = await open();
      expect(again.isError).toBeFalsy();
      for (const h of [handles[1], /bs_[A-Za-z0-9_-]{32}/.exec(text(again))![0]])
        await client.callTool({ name: 'browser_state_close', arguments: { browser: h } });
      await client.close();
    } finally {
      await gateway.close();
    }
  });

  it("holds every key together to --max-browser-states: past it a new state (a handle, or a key's default one) is refused, saying which cap, until one closes", async () => {
    const gateway = await startGateway(['--api-key', `${KEYS[0]},${KEYS[1]}`, '--max-browser-states', '2']);
    try {
      const [alice, bob] = await Promise.all([modernClient(gateway.url, KEYS[0]!), modernClient(gateway.url, KEYS[1]!)]);
      const handleOf = (answer: string) => /bs_[A-Za-z0-9_-]{32}/.exec(answer)![0];
      const aliceState = handleOf(text(await alice.callTool({ name: 'browser_state_open', arguments: {} })));
      handleOf(text(await bob.callTool({ name: 'browser_state_open', arguments: {} })));
      // Two kept, the most: a third is refused whoever asks, with the cap and what to do; nothing is opened.
      const refused = await bob.callTool({ name: 'browser_state_open', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain(
        'this browsermcp keeps 2 browser states, the most it may (--max-browser-states 2): close one of yours with browser_state_close',
      );
      const noDefault = await bob.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      expect(noDefault.isError).toBe(true);
      expect(text(noDefault)).toContain('--max-browser-states 2');
      expect(text(await bob.callTool({ name: 'browser_state_list', arguments: {} })).match(/bs_/g)).toHaveLength(1);
      // One closes: room again.
      await alice.callTool({ name: 'browser_state_close', arguments: { browser: aliceState } });
      expect(text(await bob.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }))).toContain('Fixture home');
      await Promise.all([alice.close(), bob.close()]);
    } finally {
      await gateway.close();
    }
  });

  it('opens browser states as handles: one serves calls on either gateway, apart from the default state and from other keys, until closed', async () => {
    const alice = await modernClient(balancer.url, KEYS[0]!);
    const opened = text(await alice.callTool({ name: 'browser_state_open', arguments: {} }));
    const handle = /bs_[A-Za-z0-9_-]{32}/.exec(opened)?.[0];
    expect(handle, opened).toBeDefined();
    // 192 random bits: two handles never repeat.
    expect(text(await alice.callTool({ name: 'browser_state_open', arguments: {} }))).not.toContain(handle!);
    await alice.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html'), browser: handle } });
    await alice.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    // The handle's state has its page, whichever gateway takes the call; the default state has its own.
    for (let i = 0; i < 2; i++)
      expect(text(await alice.callTool({ name: 'browser_tabs', arguments: { action: 'list', browser: handle } }))).toContain('form.html');
    expect(text(await alice.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }))).not.toContain('form.html');
    expect(text(await alice.callTool({ name: 'browser_state_list', arguments: {} }))).toContain(handle!);

    // Another key naming the handle finds nothing: the handle is checked against the caller's key on every call.
    const bob = await modernClient(balancer.url, KEYS[1]!);
    const stolen = await bob.callTool({ name: 'browser_snapshot', arguments: { browser: handle } });
    expect(stolen.isError).toBe(true);
    expect(text(stolen)).toContain('browser_state_open');
    expect(text(await bob.callTool({ name: 'browser_state_list', arguments: {} }))).not.toContain(handle!);
    expect((await bob.callTool({ name: 'browser_state_close', arguments: { browser: handle } })).isError).toBe(true);

    expect(text(await alice.callTool({ name: 'browser_state_close', arguments: { browser: handle } }))).toContain('Closed');
    const closed = await alice.callTool({ name: 'browser_snapshot', arguments: { browser: handle } });
    expect(closed.isError).toBe(true);
    expect(text(closed)).toMatch(/unknown or has closed.*browser_state_open/);
    // Not a handle at all: said so, with what one looks like.
    const bad = await alice.callTool({ name: 'browser_snapshot', arguments: { browser: 'my-browser' } });
    expect(text(bad)).toContain('browser state handle from browser_state_open');
    await Promise.all([alice.close(), bob.close()]);
  });

  it('closes a state unused for its idle time: its handle then answers that it has closed (a launched browser, 2025 session)', async () => {
    // 0.02 minutes: 1.2 s.
    const gw = await startGateway(['--keep-browser-state', '0.02', '--api-key', KEYS[0]!]);
    try {
      const client = await connectClient(gw, 'legacy-client', { key: KEYS[0]! });
      const tools = await client.listTools();
      expect(tools.tools.find((t) => t.name === 'browser_state_open')?.description).toContain('unused for 2 s closes');
      expect(tools.tools.find((t) => t.name === 'browser_snapshot')?.inputSchema.properties).toHaveProperty('browser');
      const handle = /bs_[A-Za-z0-9_-]{32}/.exec(text(await client.callTool({ name: 'browser_state_open', arguments: {} })))![0];
      await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html'), browser: handle } });
      expect(text(await client.callTool({ name: 'browser_state_list', arguments: {} }))).toMatch(new RegExp(`${handle}: unused, closes in ([0-9]+ ms|[12] s)`));
      await expect.poll(async () => text(await client.callTool({ name: 'browser_state_list', arguments: {} })), { timeout: 10_000 }).not.toContain(handle);
      const expired = await client.callTool({ name: 'browser_snapshot', arguments: { browser: handle } });
      expect(expired.isError).toBe(true);
      expect(text(expired)).toContain(`The browser state "${handle}" is unknown or has closed`);
      await client.close();
    } finally {
      await gw.close();
    }
  });

  it('sends progress while a call waits and stops the call in the browser when the client cancels it, per request', async () => {
    const client = await modernClient(balancer.url, KEYS[0]!);
    await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    const progress: string[] = [];
    const waited = await client.callTool({ name: 'browser_wait_for', arguments: { time: 2.5 } }, { onprogress: (p) => void progress.push(p.message ?? '') });
    expect(waited.isError).toBeFalsy();
    expect(progress[0]).toMatch(/^browser_wait_for is still running \(\d+ s\)/);

    const stop = new AbortController();
    const long = client.callTool({ name: 'browser_wait_for', arguments: { time: 60 } }, { signal: stop.signal, onprogress: () => stop.abort() });
    await expect(long).rejects.toThrow();
    // The daemon heard it: nothing runs there any more, and the state takes the next call at once.
    await expect.poll(async () => (await daemon.router.stats()).pending, { timeout: 10_000 }).toBe(0);
    expect(text(await client.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('Fixture home');
    await client.close();
  });

  it('answers server/discover, lists tools with a cache hint, and hands out no session id', async () => {
    const discover = await post(
      gateways[0]!.url,
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' },
    );
    expect(discover.status).toBe(200);
    expect(discover.json.result?.supportedVersions).toContain(MODERN);
    expect(discover.headers.get('mcp-session-id')).toBeNull();
    const list = await post(
      gateways[1]!.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: envelope() } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    );
    expect(list.json.result).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number) });
    expect((list.json.result!.tools as Array<{ name: string }>).map((t) => t.name)).toContain('browser_navigate');
  });

  it('refuses a header that does not match the body (-32020) and a version it does not speak (-32022, listing ours)', async () => {
    const mismatch = await post(
      gateways[0]!.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: envelope() } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' },
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error?.code).toBe(-32020);
    const future = await post(
      gateways[0]!.url,
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: envelope('2099-01-01') } },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    );
    expect(future.json.error?.code).toBe(-32022);
    expect(JSON.stringify(future.json.error?.data)).toContain(MODERN);
  });

  it('answers GET and DELETE without a session with 405: there is no session to stream or end', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${gateways[0]!.url}/mcp`, { method, headers: { authorization: `Bearer ${KEYS[0]}`, accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('still serves 2025 sessions on the same endpoint', async () => {
    const legacy = await connectClient(gateways[0]!, 'legacy-client', { key: KEYS[0]! });
    expect(text(await legacy.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }))).toContain('Fixture home');
    await legacy.close();
  });

  it('needs the key like any request', async () => {
    const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' };
    const wrong = await post(
      gateways[0]!.url,
      { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: envelope() } },
      { ...headers, authorization: 'Bearer wrong-key-0123456789abcdef' },
    );
    expect(wrong.status).toBe(403);
    const none = await post(
      gateways[0]!.url,
      { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: envelope() } },
      { ...headers, authorization: '' },
    );
    expect(none.status).toBe(401);
    await expect(modernClient(balancer.url, 'wrong-key-0123456789abcdef')).rejects.toThrow();
  });
});
