import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MCPClient, MCPError } from '../src/index.js';
import { json, sseHead, startFakeServer, type FakeServer, type Handler } from './fake-server.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What calling a tool on a server that answers tools/call with `handle` throws. */
async function failureOf(handle: Handler, options: ConstructorParameters<typeof MCPClient>[1] = {}): Promise<MCPError> {
  server = await startFakeServer(({ body, ...rest }, res) => body.method === 'tools/call' && handle({ body, ...rest }, res));
  const client = new MCPClient(server.url, options);
  try {
    await client.call('any');
  } catch (e) {
    expect(e).toBeInstanceOf(MCPError);
    return e as MCPError;
  } finally {
    await client.close();
  }
  throw new Error('the call succeeded');
}

describe('MCPError classification', () => {
  it('tells the kinds apart', () => {
    expect(new MCPError('TIMEOUT', 't').isTimeout()).toBe(true);
    expect(new MCPError('NETWORK', 'n').isNetworkError()).toBe(true);
    expect(new MCPError('UNAUTHORIZED', 'u', { status: 401 }).isUnauthorized()).toBe(true);
    expect(new MCPError('SESSION_EXPIRED', 's', { status: 404 }).isSessionExpired()).toBe(true);
    const timeout = new MCPError('TIMEOUT', 't');
    expect([timeout.isNetworkError(), timeout.isUnauthorized(), timeout.isSessionExpired(), timeout.isToolNotFound()]).toEqual([false, false, false, false]);
  });

  it('recognizes an unknown tool as -32601, or as -32602 saying so', () => {
    expect(new MCPError(-32601, 'Method not found').isToolNotFound()).toBe(true);
    expect(new MCPError(-32602, 'Unknown tool "nope". List the tools with tools/list.').isToolNotFound()).toBe(true);
    expect(new MCPError(-32602, 'MCP error -32602: Tool nope not found').isToolNotFound()).toBe(true);
    expect(new MCPError(-32602, 'Invalid arguments for tool browser_click: ref is required').isToolNotFound()).toBe(false);
    expect(new MCPError(-32603, 'Internal error').isToolNotFound()).toBe(false);
  });
});

describe('broken servers', () => {
  it('a body that is not JSON is BAD_RESPONSE', async () => {
    const error = await failureOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":2,"result":');
      return true;
    });
    expect(error.code).toBe('BAD_RESPONSE');
  });

  it('an SSE event that is not JSON is BAD_RESPONSE', async () => {
    const error = await failureOf((_req, res) => {
      sseHead(res);
      res.end('data: {oops\n\n');
      return true;
    });
    expect(error.code).toBe('BAD_RESPONSE');
  });

  it('a content type that is neither JSON nor SSE is BAD_RESPONSE', async () => {
    const error = await failureOf((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Welcome to nginx</h1>');
      return true;
    });
    expect(error.code).toBe('BAD_RESPONSE');
  });

  it('an SSE stream cut off before the answer, with no event id, is a network error', async () => {
    const error = await failureOf((_req, res) => {
      sseHead(res);
      res.end('data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\ndata: {"jsonrpc":"2.0","id":2,"res');
      return true;
    });
    expect(error.isNetworkError()).toBe(true);
  });

  it('a connection reset before the answer is a network error', async () => {
    const error = await failureOf((_req, res) => {
      res.socket?.resetAndDestroy();
      return true;
    });
    expect(error.isNetworkError()).toBe(true);
  });

  it('a connection reset in the middle of a stream, with nowhere to resume, is a network error', async () => {
    const error = await failureOf(({ method }, res) => {
      if (method === 'GET') return false; // 405: no stream to resume on
      sseHead(res);
      res.write('id: 1\nretry: 10\ndata: \n\n', () => res.socket?.resetAndDestroy());
      return true;
    });
    expect(error.isNetworkError()).toBe(true);
  });

  it('a server that cannot be reached is a network error', async () => {
    // A port that was just free and now has nothing listening.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = (await new MCPClient(`http://127.0.0.1:${port}/mcp`).connect().catch((e: unknown) => e)) as MCPError;
    expect(error.isNetworkError()).toBe(true);
  });

  it('a server that never answers is a timeout', async () => {
    const error = await failureOf(() => true, { timeout: 100 });
    expect(error.isTimeout()).toBe(true);
  });

  it('401 is unauthorized, with the status', async () => {
    server = await startFakeServer((_req, res) =>
      json(res, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Missing API key' } }, 401, { 'www-authenticate': 'Bearer' }),
    );
    const error = (await new MCPClient(server.url).connect().catch((e: unknown) => e)) as MCPError;
    expect(error.isUnauthorized()).toBe(true);
    expect(error.status).toBe(401);
    expect(error.message).toBe('Missing API key');
  });

  it('403 is unauthorized too', async () => {
    server = await startFakeServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden');
      return true;
    });
    const error = (await new MCPClient(server.url).connect().catch((e: unknown) => e)) as MCPError;
    expect(error.isUnauthorized()).toBe(true);
    expect(error.status).toBe(403);
  });

  it('an HTTP error page without a JSON-RPC body is HTTP with the status', async () => {
    const error = await failureOf((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
      return true;
    });
    expect(error.code).toBe('HTTP');
    expect(error.status).toBe(502);
  });

  it('a JSON-RPC error keeps the server code, message and data', async () => {
    const error = await failureOf(({ body }, res) =>
      json(res, { jsonrpc: '2.0', id: body.id, error: { code: -32602, message: 'Unknown tool "any"', data: { hint: 'list' } } }),
    );
    expect(error).toMatchObject({ code: -32602, message: 'Unknown tool "any"', data: { hint: 'list' } });
    expect(error.isToolNotFound()).toBe(true);
  });
});
