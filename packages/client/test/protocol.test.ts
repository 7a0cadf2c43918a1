import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MCPClient, MCPError, MCPUtils, type JSONRPCNotification, type Progress } from '../src/index.js';
import { json, SESSION, sseHead, startFakeServer, type FakeServer, type Handler, type Seen } from './fake-server.js';

let server: FakeServer | undefined;
let client: MCPClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

// The fake server is a 2025 session server: these tests speak 2025 (the 2026-07-28 tests below ask for it).
async function setup(handle?: Handler, version?: string, options: ConstructorParameters<typeof MCPClient>[1] = {}) {
  server = await startFakeServer(handle, version);
  client = new MCPClient(server.url, { protocolVersion: '2025-11-25', ...options });
  return { server, client };
}

describe('2026-07-28', () => {
  const MODERN = '2026-07-28';
  const discover: Handler = (req, res) => {
    if (req.body.method !== 'server/discover') return false;
    return json(
      res,
      result(req.body.id, {
        supportedVersions: [MODERN],
        capabilities: { tools: {} },
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern', version: '2.0.0' } },
      }),
      200,
      { 'mcp-session-id': '' },
    );
  };

  it('asks server/discover first and then speaks statelessly: every request carries the envelope and the mirrored headers, no session', async () => {
    server = await startFakeServer((req, res) => {
      if (discover(req, res)) return true;
      if (req.body.method === 'tools/call') return json(res, result(req.body.id, { content: [{ type: 'text', text: 'ok' }] }), 200, { 'mcp-session-id': '' });
      return false;
    });
    client = new MCPClient(server.url, { clientInfo: { name: 'page', version: '3' } });
    const connected = await client.connect();
    expect(connected).toMatchObject({ protocolVersion: MODERN, serverInfo: { name: 'modern' } });
    expect((await client.call('browser_snapshot')).text).toBe('ok');
    const call = server.seen.find((s) => s.body.method === 'tools/call')!;
    expect(call.headers).toMatchObject({ 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'browser_snapshot' });
    expect(call.headers['mcp-session-id']).toBeUndefined();
    expect(call.body.params?._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'page', version: '3' },
      'io.modelcontextprotocol/clientCapabilities': {},
    });
    await client.close();
    // Nothing to initialize, nothing to end.
    expect(server.seen.map((s) => s.body.method ?? s.method)).toEqual(['server/discover', 'tools/call']);
  });

  it('falls back to initialize when the server does not answer server/discover (a 2025 server)', async () => {
    server = await startFakeServer();
    client = new MCPClient(server.url);
    expect((await client.connect()).protocolVersion).toBe('2025-11-25');
    expect(server.seen.map((s) => s.body.method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(server.seen[1]!.body.params?.protocolVersion).toBe('2025-11-25');
  });

  it('does not take an unreachable server for a 2025 one: the failure is a network error', async () => {
    client = new MCPClient('http://127.0.0.1:9/mcp', { timeout: 5_000 });
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPError);
    expect((error as MCPError).isNetworkError()).toBe(true);
  });
});

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const event = (message: unknown, id?: string) => `${id ? `id: ${id}\n` : ''}data: ${JSON.stringify(message)}\n\n`;
const result = (id: Seen['body']['id'], value: unknown) => ({ jsonrpc: '2.0', id, result: value });
const toolsPage = (res: ServerResponse, id: Seen['body']['id'], names: string[], nextCursor?: string) =>
  json(res, result(id, { tools: names.map((name) => ({ name, inputSchema: { type: 'object' } })), nextCursor }));

describe('connecting', () => {
  it('sends initialize, then notifications/initialized, and the MCP headers on every later request', async () => {
    const { server, client } = await setup(({ body }, res) => body.method === 'tools/list' && toolsPage(res, body.id, ['a']));
    const info = await client.connect();
    expect(info.serverInfo.name).toBe('fake');
    await client.listTools();
    const [init, initialized, list] = server.seen;
    expect(init!.body).toMatchObject({
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browsermcp-client' } },
    });
    expect(init!.headers.accept).toBe('application/json, text/event-stream');
    expect(init!.headers['mcp-session-id']).toBeUndefined();
    expect(initialized!.body.method).toBe('notifications/initialized');
    for (const later of [initialized!, list!]) {
      expect(later.headers['mcp-session-id']).toBe(SESSION);
      expect(later.headers['mcp-protocol-version']).toBe('2025-11-25');
    }
    expect(client.getSessionId()).toBe(SESSION);
    expect(MCPUtils.getProtocolVersion()).toBe('2026-07-28');
  });

  it('initializes once for concurrent first requests', async () => {
    const { server, client } = await setup(({ body }, res) => body.method === 'tools/list' && toolsPage(res, body.id, ['a']));
    await Promise.all([client.listTools(true), client.listTools(true), client.listTools(true)]);
    expect(server.messages('initialize')).toHaveLength(1);
  });

  it('accepts an older version the server answers with and sends it from then on', async () => {
    const { server, client } = await setup(({ body }, res) => body.method === 'tools/list' && toolsPage(res, body.id, []), '2025-03-26');
    await client.listTools();
    expect(server.seen.at(-1)!.headers['mcp-protocol-version']).toBe('2025-03-26');
  });

  it('offers the next version when a server refuses the first with a 400 about the version', async () => {
    const { server, client } = await setup(({ body }, res) => {
      const offered = body.params?.protocolVersion;
      if (body.method !== 'initialize' || offered !== '2025-11-25') return false;
      return json(res, { jsonrpc: '2.0', id: body.id, error: { code: -32602, message: 'Unsupported protocol version: 2025-11-25' } }, 400);
    }, '2025-06-18');
    await client.connect();
    expect(server.messages('initialize').map((m) => m.params?.protocolVersion)).toEqual(['2025-11-25', '2025-06-18']);
  });

  it('fails with PROTOCOL when the server answers with a version the client does not speak', async () => {
    const { client } = await setup(undefined, '2024-11-05');
    await expect(client.connect()).rejects.toMatchObject({ code: 'PROTOCOL' });
  });
});

describe('requests and results', () => {
  it('caches the tool list, follows cursors, and asks again when refreshed or told the list changed', async () => {
    const { server, client } = await setup(({ body }, res) => {
      if (body.method !== 'tools/list') return false;
      return body.params?.cursor ? toolsPage(res, body.id, ['b']) : toolsPage(res, body.id, ['a'], 'page-2');
    });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['a', 'b']);
    await client.listTools();
    expect(server.messages('tools/list')).toHaveLength(2);
    await client.listTools(true);
    expect(server.messages('tools/list')).toHaveLength(4);
  });

  it('maps a tool result to raw, text, data and isError', async () => {
    const { client } = await setup(({ body }, res) => {
      if (body.method !== 'tools/call') return false;
      const name = body.params?.name;
      const value =
        name === 'json'
          ? {
              content: [
                { type: 'text', text: '{"n":' },
                { type: 'image', data: 'AA==', mimeType: 'image/png' },
                { type: 'text', text: '1}' },
              ],
            }
          : name === 'structured'
            ? { content: [{ type: 'text', text: 'n is 2' }], structuredContent: { n: 2 } }
            : { content: [{ type: 'text', text: 'Element not found' }], isError: true };
      return json(res, result(body.id, value));
    });
    const fromJson = await client.call('json', { x: 1 });
    expect(fromJson).toMatchObject({ text: '{"n":\n1}', data: { n: 1 }, isError: false });
    expect(fromJson.raw.content).toHaveLength(3);
    expect((await client.call('structured')).data).toEqual({ n: 2 });
    expect(await client.call('failing')).toMatchObject({ text: 'Element not found', data: undefined, isError: true });
  });

  it('reads an SSE answer: progress to onProgress, notifications to listeners, a server ping answered', async () => {
    const pingAnswered = deferred<unknown>();
    const { client } = await setup(async ({ body }, res) => {
      if (body.id === 'srv-1') {
        pingAnswered.resolve(body);
        res.writeHead(202).end();
        return true;
      }
      if (body.method !== 'tools/call') return false;
      const token = (body.params!._meta as { progressToken: number }).progressToken;
      sseHead(res);
      res.write(event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } }, 'e1'));
      res.write(
        `: comment\nevent: message\nid: e2\ndata: {"jsonrpc":"2.0","method":"notifications/message",\ndata: "params":{"level":"info","data":"half way"}}\n\n`,
      );
      res.write(event({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' }, 'e3'));
      // The answer waits for the ping's: the client must answer while its own request is open.
      await pingAnswered.promise;
      res.write(event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 2, total: 2 } }, 'e4'));
      res.end(event(result(body.id, { content: [{ type: 'text', text: 'done' }] }), 'e5'));
      return true;
    });
    const notifications: JSONRPCNotification[] = [];
    client.on('notification', (n) => notifications.push(n));
    const progress: Progress[] = [];
    const answer = await client.call('slow', {}, { onProgress: (p) => progress.push(p) });
    expect(answer.text).toBe('done');
    expect(progress.map((p) => p.progress)).toEqual([1, 2]);
    expect(notifications.map((n) => n.method)).toEqual(['notifications/progress', 'notifications/message', 'notifications/progress']);
    expect(notifications[1]!.params).toEqual({ level: 'info', data: 'half way' });
    expect(await pingAnswered.promise).toEqual({ jsonrpc: '2.0', id: 'srv-1', result: {} });
  });

  it('answers server requests it does not handle with method not found', async () => {
    const answered = deferred<unknown>();
    const { client } = await setup(async ({ body }, res) => {
      if (body.id === 'srv-2') {
        answered.resolve(body);
        res.writeHead(202).end();
        return true;
      }
      if (body.method !== 'tools/call') return false;
      sseHead(res);
      res.write(event({ jsonrpc: '2.0', id: 'srv-2', method: 'sampling/createMessage', params: {} }));
      await answered.promise;
      res.end(event(result(body.id, { content: [] })));
      return true;
    });
    await client.call('asks');
    expect(await answered.promise).toMatchObject({ id: 'srv-2', error: { code: -32601 } });
  });

  it('restarts the timeout on each progress notification', async () => {
    const { client } = await setup(
      async ({ body }, res) => {
        if (body.method !== 'tools/call') return false;
        const { progressToken } = body.params!._meta as { progressToken: number };
        sseHead(res);
        for (let i = 1; i <= 5; i++) {
          await new Promise((r) => setTimeout(r, 100));
          res.write(event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: i } }));
        }
        res.end(event(result(body.id, { content: [{ type: 'text', text: 'late but alive' }] })));
        return true;
      },
      undefined,
      { timeout: 400 },
    );
    const answer = await client.call('long', {}, { onProgress: () => undefined });
    expect(answer.text).toBe('late but alive');
  });
});

describe('cancellation', () => {
  function hangingServer() {
    const called = deferred();
    const cancelled = deferred<Record<string, unknown> | undefined>();
    const handle: Handler = ({ body }, res) => {
      if (body.method === 'notifications/cancelled') cancelled.resolve(body.params);
      if (body.method !== 'tools/call') return false;
      sseHead(res);
      called.resolve();
      return true;
    };
    return { handle, called, cancelled };
  }

  it('aborting the signal rejects with ABORTED and sends notifications/cancelled', async () => {
    const { handle, called, cancelled } = hangingServer();
    const { client } = await setup(handle);
    const ctl = new AbortController();
    const call = client.call('hang', {}, { signal: ctl.signal });
    await called.promise;
    ctl.abort();
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPError);
    expect((error as MCPError).code).toBe('ABORTED');
    expect(await cancelled.promise).toMatchObject({ requestId: 2 });
  });

  it('an already aborted signal sends nothing', async () => {
    const { server, client } = await setup();
    await client.connect();
    await expect(client.call('x', {}, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(server.messages('tools/call')).toHaveLength(0);
  });

  it('a timeout rejects with TIMEOUT and cancels the request on the server', async () => {
    const { handle, cancelled } = hangingServer();
    const { client } = await setup(handle, undefined, { timeout: 150 });
    const error = (await client.call('hang').catch((e: unknown) => e)) as MCPError;
    expect(error.isTimeout()).toBe(true);
    expect(await cancelled.promise).toMatchObject({ requestId: 2 });
  });
});

describe('streams', () => {
  it('resumes a POST stream that ends before its answer with GET and Last-Event-ID after the retry time', async () => {
    let closedAt = 0;
    const { server, client } = await setup(({ method, headers, body }, res) => {
      if (method === 'POST' && body.method === 'tools/call') {
        sseHead(res);
        res.write('id: call-1\nretry: 120\ndata: \n\n');
        closedAt = performance.now();
        res.end();
        return true;
      }
      if (method === 'GET' && headers['last-event-id'] === 'call-1') {
        sseHead(res);
        res.write(event(result(2, { content: [{ type: 'text', text: 'resumed' }] }), 'call-2'));
        return true; // left open: the client closes it once it has its answer
      }
      return false;
    });
    const answer = await client.call('reconnecting');
    expect(answer.text).toBe('resumed');
    const get = server.seen.find((s) => s.method === 'GET')!;
    expect(get.headers.accept).toBe('text/event-stream');
    expect(get.headers['mcp-session-id']).toBe(SESSION);
    expect(performance.now() - closedAt).toBeGreaterThanOrEqual(110);
  });

  it('openStream delivers notifications and reconnects with Last-Event-ID when the server closes the stream', async () => {
    const second = deferred();
    const { server, client } = await setup(({ method, headers }, res) => {
      if (method !== 'GET') return false;
      sseHead(res);
      if (!headers['last-event-id']) {
        res.end(`retry: 30\n${event({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 1 } }, 'g1')}`);
      } else {
        res.write(event({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 2 } }, 'g2'));
        second.resolve();
      }
      return true;
    });
    const seen: unknown[] = [];
    const both = deferred();
    client.on('notification', (n) => {
      seen.push(n.params?.data);
      if (seen.length === 2) both.resolve();
    });
    expect(await client.openStream()).toBe(true);
    await Promise.all([second.promise, both.promise]);
    expect(seen).toEqual([1, 2]);
    const gets = server.seen.filter((s) => s.method === 'GET');
    expect(gets.map((g) => g.headers['last-event-id'])).toEqual([undefined, 'g1']);
  });

  it('openStream gives up after three connections in a row that bring nothing, and reports it', async () => {
    const { server, client } = await setup(({ method }, res) => {
      if (method !== 'GET') return false;
      sseHead(res);
      res.end('retry: 10\n: nothing else\n\n');
      return true;
    });
    const failed = new Promise<Error>((resolve) => client.on('error', resolve));
    expect(await client.openStream()).toBe(true);
    expect((await failed) as MCPError).toMatchObject({ code: 'NETWORK' });
    expect(server.seen.filter((s) => s.method === 'GET')).toHaveLength(3);
  });

  it('openStream resolves false when the server offers no GET stream', async () => {
    const { client } = await setup();
    expect(await client.openStream()).toBe(false);
  });
});

describe('sessions', () => {
  it('close sends DELETE with the session id, tolerates 405, and the next call starts a new session', async () => {
    const { server, client } = await setup(({ method, body }, res) => {
      if (method === 'DELETE') {
        res.writeHead(405).end();
        return true;
      }
      return body.method === 'tools/list' && toolsPage(res, body.id, ['a']);
    });
    await client.listTools();
    await client.close();
    const del = server.seen.find((s) => s.method === 'DELETE')!;
    expect(del.headers['mcp-session-id']).toBe(SESSION);
    expect(client.getSessionId()).toBeUndefined();
    await client.listTools();
    expect(server.messages('initialize')).toHaveLength(2);
    expect(server.messages('tools/list')).toHaveLength(2);
  });

  it('close rejects pending requests with CLOSED', async () => {
    const called = deferred();
    const { client } = await setup(({ body }, res) => {
      if (body.method !== 'tools/call') return false;
      sseHead(res);
      called.resolve();
      return true;
    });
    const outcome = client.call('hang').catch((e: unknown) => e);
    await called.promise;
    await client.close();
    expect(await outcome).toMatchObject({ code: 'CLOSED' });
  });

  it('a 404 for the session re-initializes once and repeats the request', async () => {
    let sessions = 0;
    const { server, client } = await setup(({ headers, body }, res) => {
      if (body.method === 'initialize') {
        sessions++;
        return json(res, result(body.id, { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'f', version: '1' } }), 200, {
          'mcp-session-id': `s${sessions}`,
        });
      }
      if (body.method === 'tools/list' && headers['mcp-session-id'] === 's1') {
        return json(res, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }, 404);
      }
      return body.method === 'tools/list' && toolsPage(res, body.id, ['a']);
    });
    await client.connect();
    expect((await client.listTools()).map((t) => t.name)).toEqual(['a']);
    expect(client.getSessionId()).toBe('s2');
    expect(server.messages('notifications/initialized')).toHaveLength(2);
  });

  it('a second 404 fails with SESSION_EXPIRED', async () => {
    const { server, client } = await setup(
      ({ body }, res) => body.method === 'tools/list' && json(res, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }, 404),
    );
    const error = (await client.listTools().catch((e: unknown) => e)) as MCPError;
    expect(error.isSessionExpired()).toBe(true);
    expect(error.status).toBe(404);
    expect(server.messages('initialize')).toHaveLength(2);
  });
});
