import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForwardProxy {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The absolute URLs of the requests it forwarded, in order. */
  seen: string[];
  close(): Promise<void>;
}

/** A plain-HTTP forward proxy on loopback that records what it forwards (no CONNECT: the tests use http only). */
export async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    const target = req.url ?? '';
    if (!/^http:\/\//.test(target)) {
      res.writeHead(400).end('absolute-form http URLs only');
      return;
    }
    seen.push(target);
    const upstream = request(target, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (err) => res.writeHead(502).end(String(err)));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
