import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixtureServer, testChromePath, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What a user outside this repository gets: the public packages packed as they would be published, installed from
// the tarballs into an empty directory (third-party dependencies from the npm registry), then the gateway run over
// stdio by the official SDK client under Node 20, 22 and 24 (the registry's `node` package), and the daemon's --help.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PUBLIC = ['protocol', 'tools', 'daemon', 'gateway', 'client'];
let app: string;
let server: FixtureServer;

// Run by the installed copy, in the app directory: the official v2 client starts the installed gateway over stdio and
// speaks 2026-07-28 to it (2025 sessions over stdio are the transports test's).
const CLIENT = `
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const [url, chrome] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: process.execPath,
  args: ['node_modules/@browsermcp/gateway/dist/cli.js', '--headless', '--executable-path', chrome],
  stderr: 'ignore',
});
const client = new Client({ name: 'packed-install', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await client.connect(transport);
if (client.getNegotiatedProtocolVersion() !== '2026-07-28') throw new Error('spoke ' + client.getNegotiatedProtocolVersion());
const text = (r) => r.content.map((c) => c.text ?? '').join('');
const navigated = text(await client.callTool({ name: 'browser_navigate', arguments: { url } }));
const snapshot = text(await client.callTool({ name: 'browser_snapshot', arguments: {} }));
await client.close();
console.log(JSON.stringify({ node: process.version, navigated, snapshot }));
`;

beforeAll(async () => {
  const work = mkdtempSync(join(tmpdir(), 'bmcp-packed-'));
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  // dist/ is built already (the test command builds first); pnpm writes out workspace: and catalog: versions. One
  // pnpm for the five packages (a start of npx each costs a second).
  const filters = PUBLIC.flatMap((name) => ['--filter', `@browsermcp/${name}`]);
  execFileSync('npx', ['-y', 'pnpm@12.4.2', '-r', ...filters, 'pack', '--pack-destination', tarballs, '--config.ignore-scripts=true'], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  expect(readdirSync(tarballs)).toHaveLength(PUBLIC.length);
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'packed-install-app', private: true, type: 'module' }));
  writeFileSync(join(app, 'client.mjs'), CLIENT);
  const files = readdirSync(tarballs).map((f) => join(tarballs, f));
  // TypeScript too, for a consumer that type-checks against the published types.
  execFileSync(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel',
      'error',
      ...files,
      'typescript@5.9.3',
      '@types/node@20',
      '@modelcontextprotocol/client@2.4.0',
    ],
    { cwd: app, stdio: 'ignore', timeout: 240_000 },
  );
  server = await startFixtureServer();
}, 300_000);
afterAll(async () => {
  await server?.close();
});

/**
 * Runs the client under `node` (a version from the registry's node package, or this Node). Asynchronously: the
 * fixture server it reads pages from runs in this process.
 */
async function runClient(nodeVersion: string | undefined): Promise<{ node: string; navigated: string; snapshot: string }> {
  const args = ['client.mjs', server.url('/index.html'), testChromePath()];
  const run = promisify(execFile);
  const { stdout } = nodeVersion
    ? await run('npx', ['-y', '-p', `node@${nodeVersion}`, 'node', ...args], { cwd: app, encoding: 'utf8', timeout: 240_000 })
    : await run(process.execPath, args, { cwd: app, encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

describe('installed from the packed tarballs, outside the repository', () => {
  // First and alone: tsc beside the three Node runs (each a gateway and a browser) reached its limit on a loaded
  // two-core machine (118 s, against 31 s alone).
  it('type-checks an ES module and a CommonJS consumer of every package against the published types', async () => {
    const names = ['protocol', 'tools', 'daemon', 'gateway', 'client'];
    const esm = [
      ...names.map((n, i) => `import * as p${i} from '@browsermcp/${n}';\nvoid p${i};`),
      "import '@browsermcp/client/iife';",
      'void globalThis.BrowserMCP.MCPClient;',
    ];
    const cjs = (list: string[]) => list.map((n, i) => `import p${i} = require('@browsermcp/${n}');\nvoid p${i};`).join('\n');
    writeFileSync(join(app, 'consumer.mts'), esm.join('\n'));
    writeFileSync(join(app, 'consumer.cts'), cjs(names.filter((n) => n !== 'gateway')));
    writeFileSync(join(app, 'gateway-consumer.cts'), cjs(['gateway']));
    const tsc = async (files: string[], skipLibCheck: boolean) => {
      const flags = [
        '--noEmit',
        '--strict',
        '--module',
        'node16',
        '--moduleResolution',
        'node16',
        '--target',
        'es2022',
        '--lib',
        'es2022,dom',
        '--types',
        'node',
        '--skipLibCheck',
        String(skipLibCheck),
      ];
      try {
        await promisify(execFile)(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), ...flags, ...files], {
          cwd: app,
          encoding: 'utf8',
        });
      } catch (err) {
        throw new Error(`tsc found problems in the published types (${files.join(', ')}):\n${(err as { stdout?: string }).stdout ?? String(err)}`);
      }
    };
    // One tsc for the ES module consumer and one for both CommonJS ones (a process each was 3 on 2 cores, each checking
    // the same libraries again). Not one for all: a program holding both a package's .d.ts and .d.cts sees its
    // `declare module 'fastify'` twice and fails (TS2717), which no consumer of one format meets.
    await Promise.all([
      // Library types are checked too (a type a package needs at run time must be its dependency, e.g. @types/ws).
      tsc(['consumer.mts'], false),
      // The gateway's CommonJS types reach the MCP SDK's (v2 passes a library check; v1's did not).
      tsc(['consumer.cts', 'gateway-consumer.cts'], false),
    ]);
  }, 120_000);

  // Then the three Node versions at once: each client waits mostly on its own process and browser.
  for (const version of [undefined, '22', '24']) {
    it.concurrent(`runs the gateway over stdio for the SDK client (navigate, snapshot) under Node ${version ?? process.versions.node.split('.')[0]}`, async () => {
      const result = await runClient(version);
      expect(result.node).toMatch(new RegExp(`^v${version ?? process.versions.node.split('.')[0]}\\.`));
      expect(result.navigated).toContain('- Page Title: Fixture home');
      expect(result.snapshot).toMatch(/button "Click me" \[ref=e\d+\]/);
    }, 300_000);
  }

  it("installs the daemon's CLI with its --help", () => {
    const help = execFileSync(process.execPath, [join(app, 'node_modules', '@browsermcp', 'daemon', 'dist', 'cli.js'), '--help'], { encoding: 'utf8' });
    expect(help).toContain('browsermcp-daemon');
    expect(help).toContain('--port');
    expect(help).toContain('--browser-arg');
  });

  it('loads @browsermcp/client with import and require, without dependencies', () => {
    const both = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { createRequire } from 'node:module'; const esm = await import('@browsermcp/client'); const cjs = createRequire(process.cwd() + '/x.js')('@browsermcp/client'); console.log(typeof esm.MCPClient, typeof cjs.MCPClient);",
      ],
      { cwd: app, encoding: 'utf8' },
    );
    expect(both.trim()).toBe('function function');
  });
});
