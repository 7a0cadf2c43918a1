import { readFile } from 'node:fs/promises';
import { realAppFiles } from '@browsermcp/realapps';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const PAGES_DIR = fileURLToPath(new URL('../pages/', import.meta.url));

export interface FixtureServer {
  /** Origin on 127.0.0.1, e.g. http://127.0.0.1:43210 */
  origin: string;
  /** A second, cross-site origin on the same loopback server (http://localhost:<port>). */
  crossOrigin: string;
  /**
   * A third origin on the same loopback server (http://blocked.localhost:<port>: browsers resolve *.localhost to
   * loopback themselves), for tests of origin lists.
   */
  blockedOrigin: string;
  url(path: string): string;
  crossUrl(path: string): string;
  /** Requests seen by path, for tests that assert what the browser fetched. */
  requests: string[];
  /** Requests seen as host and path ("blocked.localhost:4321/item/1"), for tests that assert which origin was reached. */
  visits: string[];
  close(): Promise<void>;
}

export interface FixtureServerOptions {
  /**
   * Extra files served as they are, by URL path: `{ '/client.js': '/abs/path/dist/index.global.js' }`. For tests that
   * load a build (a script, a demo page) into a fixture origin. Read on every request, so a rebuild is picked up.
   */
  files?: Record<string, string>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** Rows of links, buttons and inputs: the big-page fixture for the snapshot budgets. */
export function tableHtml(rows: number): string {
  const body: string[] = [];
  for (let i = 1; i <= rows; i++) {
    body.push(
      `<tr><td>${i}</td><td><a href="/item/${i}">Item ${i}</a></td><td>Description of item number ${i}</td>` +
        `<td><button type="button">Edit ${i}</button></td><td><input aria-label="Quantity ${i}" value="${i % 10}"></td></tr>`,
    );
  }
  return `<!doctype html><html><head><title>Table ${rows}</title></head><body><h1>Inventory</h1>
<table><thead><tr><th>#</th><th>Name</th><th>Description</th><th>Action</th><th>Qty</th></tr></thead>
<tbody>${body.join('\n')}</tbody></table></body></html>`;
}

async function handle(req: IncomingMessage, res: ServerResponse, requests: string[], visits: string[], files: Record<string, string>): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fixture');
  requests.push(url.pathname);
  visits.push(`${req.headers.host ?? ''}${url.pathname}`);
  const file = Object.hasOwn(files, url.pathname) ? files[url.pathname] : undefined;
  if (file !== undefined) {
    // Bytes, not a string: the {{CROSS}}/{{SAME}} filling below is for fixture pages only.
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(body);
    return;
  }
  const send = (status: number, type: string, body: string) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(body);
  };
  if (url.pathname === '/table') {
    const rows = Math.min(Number(url.searchParams.get('rows') ?? '300') || 300, 20_000);
    return send(200, 'text/html; charset=utf-8', tableHtml(rows));
  }
  if (url.pathname === '/api/slow') {
    const ms = Math.min(Number(url.searchParams.get('ms') ?? '200') || 200, 10_000);
    await new Promise((r) => setTimeout(r, ms));
    return send(200, 'application/json', JSON.stringify({ ok: true, ms }));
  }
  if (url.pathname === '/redirect') {
    // To a path on this server, or to one of its other names (http://localhost:…, http://blocked.localhost:…).
    const to = url.searchParams.get('to') ?? '/';
    const ours = to.startsWith('/') || /^http:\/\/([\w.-]+\.)?localhost:\d+\//.test(to);
    res.writeHead(302, { location: ours ? to : '/', 'cache-control': 'no-store' });
    res.end();
    return;
  }
  if (url.pathname === '/download') {
    // A file the browser saves rather than shows: a navigation to it is aborted and the page stays.
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="report.bin"', 'cache-control': 'no-store' });
    res.end('not a page');
    return;
  }
  if (url.pathname === '/api/data') return send(200, 'application/json', JSON.stringify({ items: ['alpha', 'beta'] }));
  if (url.pathname.startsWith('/item/')) {
    const id = url.pathname.slice('/item/'.length);
    return send(200, 'text/html; charset=utf-8', `<!doctype html><title>Item ${id}</title><h1>Item ${id}</h1><a href="/table">Back</a>`);
  }
  if (url.pathname === '/favicon.ico') return send(204, 'image/x-icon', '');
  if (url.pathname === '/echo-cookie') return send(200, 'text/plain', req.headers.cookie ?? '');
  const name = url.pathname === '/' ? 'index.html' : url.pathname.slice(1);
  if (!/^[\w-]+\.html$/.test(name)) return send(404, 'text/plain', 'not found');
  try {
    const html = await readFile(PAGES_DIR + name, 'utf8');
    return send(200, 'text/html; charset=utf-8', html);
  } catch {
    return send(404, 'text/plain', 'not found');
  }
}

/** Serves the fixture pages on loopback only. Pages may link to `{{CROSS}}` (the other origin) and `{{BLOCKED}}`, filled in here. */
export async function startFixtureServer(options: FixtureServerOptions = {}): Promise<FixtureServer> {
  // The real-app pages (@browsermcp/realapps) are served with the fixture pages, under /realapps/.
  const files = { ...realAppFiles(), ...(options.files ?? {}) };
  const requests: string[] = [];
  const visits: string[] = [];
  let crossOrigin = '';
  let blockedOrigin = '';
  let origin = '';
  const server: Server = createServer((req, res) => {
    const end = res.end.bind(res);
    // Fill the placeholders that name the other origin (for cross-origin iframes and links).
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string') chunk = chunk.replaceAll('{{CROSS}}', crossOrigin).replaceAll('{{SAME}}', origin).replaceAll('{{BLOCKED}}', blockedOrigin);
      return (end as (...a: unknown[]) => ServerResponse)(chunk, ...rest);
    }) as ServerResponse['end'];
    handle(req, res, requests, visits, files).catch((err: unknown) => {
      res.statusCode = 500;
      end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  crossOrigin = `http://localhost:${port}`;
  blockedOrigin = `http://blocked.localhost:${port}`;
  return {
    origin,
    crossOrigin,
    blockedOrigin,
    url: (path) => origin + path,
    crossUrl: (path) => crossOrigin + path,
    requests,
    visits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
