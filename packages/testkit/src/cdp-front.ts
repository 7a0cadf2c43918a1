import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface CdpFront {
  /** e.g. http://127.0.0.1:41234: use it as --cdp-endpoint. */
  url: string;
  /** The headers of every request that reached it (/json/version and the WebSocket upgrade). */
  seen: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * A gatekeeper in front of a browser's DevTools endpoint, as a hosted browser service puts one: it lets a request
 * through only with `required` headers (401 otherwise), answers /json/version with its own address, and carries the
 * WebSocket to the browser.
 */
export async function startCdpFront(browserEndpoint: string, required: Record<string, string>): Promise<CdpFront> {
  const upstream = new URL(browserEndpoint);
  const seen: IncomingHttpHeaders[] = [];
  const allowed = (headers: IncomingHttpHeaders) => Object.entries(required).every(([k, v]) => headers[k.toLowerCase()] === v);
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    seen.push(req.headers);
    if (!allowed(req.headers)) return void res.writeHead(401).end('missing credentials');
    const up = request(new URL(req.url ?? '/', upstream), { headers: { host: upstream.host } }, (answer) => {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (d: string) => (body += d));
      answer.on('end', () => {
        // The browser names its own address; clients must come back through here.
        res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' }).end(body.replaceAll(upstream.host, req.headers.host ?? ''));
      });
    });
    up.on('error', (err) => res.writeHead(502).end(String(err)));
    up.end();
  });
  server.on('upgrade', (req, socket, head) => {
    seen.push(req.headers);
    sockets.add(socket as Socket);
    if (!allowed(req.headers)) return void socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n');
    const to = connect(Number(upstream.port), upstream.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!;
        lines.push(`${name}: ${name.toLowerCase() === 'host' ? upstream.host : req.rawHeaders[i + 1]}`);
      }
      to.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) to.write(head);
      socket.pipe(to).pipe(socket);
    });
    sockets.add(to);
    const end = () => {
      socket.destroy();
      to.destroy();
    };
    to.on('error', end);
    socket.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
