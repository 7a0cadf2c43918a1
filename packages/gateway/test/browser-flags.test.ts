import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer, startForwardProxy, type FixtureServer, type ForwardProxy } from '@browsermcp/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway, text } from './helpers.js';

// @playwright/mcp's browser flags, each observed in the page of a browser the gateway launched.

let server: FixtureServer;
let proxy: ForwardProxy;
let https: Server;
let httpsUrl: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bmcp-flags-'));
  // A self-signed certificate: a browser that checks certificates refuses the page.
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost'],
    { stdio: 'ignore' },
  );
  https = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) =>
    res.end('<title>Self-signed</title><p>secure enough</p>'),
  );
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  httpsUrl = `https://127.0.0.1:${(https.address() as AddressInfo).port}/`;
  writeFileSync(join(dir, 'init.js'), "window.__init = 'ran before ' + (document.scripts.length === 0 ? 'the page scripts' : 'late');");
  [server, proxy] = await Promise.all([startFixtureServer(), startForwardProxy()]);
  writeFileSync(
    join(dir, 'state.json'),
    JSON.stringify({
      cookies: [{ name: 'session', value: 'logged-in', domain: '127.0.0.1', path: '/' }],
      origins: [{ origin: server.origin, localStorage: [{ name: 'theme', value: 'dark' }] }],
    }),
  );
});
afterAll(async () => {
  await server?.close();
  await proxy?.close();
  https?.close();
});

async function withGateway(flags: string[], run: (client: Client) => Promise<void>): Promise<void> {
  const gw: RunningHttpGateway = await startGateway(flags);
  const client = await connectClient(gw, 'flags');
  try {
    await run(client);
  } finally {
    await client.close();
    await gw.close();
  }
}

const evaluate = async (client: Client, fn: string) =>
  text(await client.callTool({ name: 'browser_evaluate', arguments: { function: fn } }))
    .split('### Result\n')[1]!
    .split('\n\n')[0];

describe('browser flags', () => {
  it('--user-agent, --init-script, --grant-permissions, --block-service-workers, --proxy-server, --browser-arg, --no-sandbox', async () => {
    await withGateway(
      [
        '--browser-arg',
        '--lang=de-DE',
        '--browser-arg=--accept-lang=de-DE,de',
        '--no-sandbox',
        '--user-agent',
        'browsermcp-test/1.0',
        '--init-script',
        join(dir, 'init.js'),
        '--grant-permissions',
        'geolocation',
        '--block-service-workers',
        '--proxy-server',
        proxy.url,
        // Chromium never proxies loopback unless the bypass list takes it out.
        '--proxy-bypass',
        '<-loopback>',
      ],
      async (client) => {
        await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
        expect(await evaluate(client, '() => navigator.userAgent')).toBe('"browsermcp-test/1.0"');
        expect(await evaluate(client, '() => window.__init')).toBe('"ran before the page scripts"');
        expect(await evaluate(client, "() => navigator.permissions.query({ name: 'geolocation' }).then((p) => p.state)")).toBe('"granted"');
        expect(await evaluate(client, "() => navigator.serviceWorker.register('/sw.js').then(() => 'registered', (e) => e.message)")).toContain(
          'Service workers are blocked',
        );
        expect(proxy.seen).toContain(server.url('/index.html'));
        expect(await evaluate(client, "() => navigator.languages.join(',')")).toMatch(/^"de-DE,de\b/);
      },
    );
  });

  it('--browser chromium finds Chromium; --profile-dir-name uses that profile inside --user-data-dir', async () => {
    const profiles = mkdtempSync(join(tmpdir(), 'bmcp-profiles-'));
    await withGateway(['--browser', 'chromium', '--user-data-dir', profiles, '--profile-dir-name', 'Work'], async (client) => {
      expect(text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }))).toContain('Fixture home');
      expect(await evaluate(client, "() => localStorage.setItem('seen', 'yes') ?? 'stored'")).toBe('"stored"');
    });
    // Chrome made the named profile, and no "Default" beside it.
    expect(existsSync(join(profiles, 'Work', 'Local Storage'))).toBe(true);
    expect(existsSync(join(profiles, 'Default'))).toBe(false);
  });

  it('--ignore-https-errors opens a page with a self-signed certificate; --storage-state starts sessions logged in', async () => {
    await withGateway(['--ignore-https-errors', '--storage-state', join(dir, 'state.json')], async (client) => {
      expect(text(await client.callTool({ name: 'browser_navigate', arguments: { url: httpsUrl } }))).toContain('secure enough');
      expect(text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/echo-cookie') } }))).toContain('session=logged-in');
      await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      expect(await evaluate(client, "() => localStorage.getItem('theme')")).toBe('"dark"');
    });
  });

  it('without --ignore-https-errors a self-signed page is refused; --device emulates a phone', async () => {
    await withGateway(['--device', 'iPhone 15'], async (client) => {
      const refused = await client.callTool({ name: 'browser_navigate', arguments: { url: httpsUrl } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/CERT/);
      await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      expect(await evaluate(client, "() => screen.width + ' ' + /iPhone/.test(navigator.userAgent) + ' ' + matchMedia('(pointer: coarse)').matches")).toBe(
        '"393 true true"',
      );
    });
  });
});
