import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON-RPC message of a POST. */
  body: { jsonrpc?: string; id?: number | string; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };
}

/** Returns true when it answered; false falls through to the default MCP behaviour. */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that answers nothing falls through, as one returning false
export type Handler = (req: Seen, res: ServerResponse) => boolean | void | Promise<boolean | void>;

export interface FakeServer {
  url: string;
  seen: Seen[];
  /** The POSTed messages by JSON-RPC method. */
  messages(method: string): Seen['body'][];
  close(): Promise<void>;
}

export const SESSION = 'session-1';

export function json(res: ServerResponse, message: unknown, status = 200, headers: Record<string, string> = {}): true {
  res.writeHead(status, { 'content-type': 'application/json', 'mcp-session-id': SESSION, ...headers });
  res.end(JSON.stringify(message));
  return true;
}

export function sseHead(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': SESSION });
  res.flushHeaders();
}

/** A scripted Streamable HTTP server on loopback: initialize and notifications by default, the rest by `handle`. */
export async function startFakeServer(handle: Handler = () => false, version = '2025-11-25'): Promise<FakeServer> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const entry: Seen = { method: req.method ?? '', headers: req.headers, body: raw ? (JSON.parse(raw) as Seen['body']) : {} };
      seen.push(entry);
      void (async () => {
        if (await handle(entry, res)) return;
        const { body } = entry;
        if (req.method === 'POST' && body.method === 'initialize') {
          return json(res, {
            jsonrpc: '2.0',
            id: body.id,
            result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1.0.0' } },
          });
        }
        if (req.method === 'POST' && body.id === undefined) {
          res.writeHead(202).end();
          return;
        }
        if (req.method === 'DELETE') {
          res.writeHead(200).end();
          return;
        }
        res.writeHead(405).end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    messages: (method) => seen.filter((s) => s.method === 'POST' && s.body.method === method).map((s) => s.body),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
