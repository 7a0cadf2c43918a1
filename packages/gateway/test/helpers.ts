import { createServer, request as httpRequest, type Server } from 'node:http';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { processTree, startFixtureServer, testChromePath, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { buildProgram, resolveConfig, startHttpGateway, type RunningHttpGateway } from '../src/index.js';

/** A gateway on an ephemeral loopback port, configured with CLI flags as a user would; logs are kept quiet. */
export async function startGateway(flags: string[] = [], options: { logs?: Array<Record<string, unknown>> } = {}): Promise<RunningHttpGateway> {
  const program = buildProgram().exitOverride();
  // A launched test browser is headless; --extension, --cdp-endpoint and --daemon-url drive a browser started elsewhere.
  const headless = ['--extension', '--cdp-endpoint', '--daemon-url'].some((flag) => flags.includes(flag)) ? [] : ['--headless'];
  // With `logs`, its info lines are kept there (parsed); otherwise only warnings are written, and dropped.
  program.parse(['--port', '0', ...headless, '--log-level', options.logs ? 'info' : 'warn', ...flags], { from: 'user' });
  const config = resolveConfig(program, {});
  const port = config.port ?? 0;
  const logStream = new PassThrough();
  const logs = options.logs;
  if (logs)
    logStream.on('data', (chunk: Buffer) =>
      logs.push(
        ...chunk
          .toString()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      ),
    );
  return startHttpGateway({ ...config, port }, { logStream });
}

/** The Host header a client sends for this gateway (allowed hosts include the real port). */
export function hostOf(gw: RunningHttpGateway): string {
  return new URL(gw.url).host;
}

/** An SDK client over Streamable HTTP; with `roots`, it declares them (MCP roots) and answers roots/list with them. */
export async function connectClient(gw: RunningHttpGateway, name = 'test-client', options: { roots?: string[]; key?: string } = {}): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, options.roots ? { capabilities: { roots: { listChanged: true } } } : {});
  const roots = options.roots;
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href })) }));
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${options.key ?? gw.apiKey}` } },
  });
  await client.connect(transport);
  return client;
}

export { refIn, textOf as text } from '@browsermcp/testkit';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

export interface SpawnedGateway {
  child: ChildProcessWithoutNullStreams;
  /** The Streamable HTTP URL and key from its banner, and the banner itself. */
  url: string;
  key: string;
  banner: string;
  /** An SDK client connected to it. */
  client: Client;
  /** The processes below the gateway: its browser. */
  browserPids(): number[];
  /** SIGKILLs it (if still running) and closes the client. */
  close(): Promise<void>;
}

/**
 * The gateway CLI as a user runs it (built dist), headless on a free port, with a client connected (over loopback,
 * whatever URL the banner shows). `key`: the key to use when the banner does not print it (one the test gave).
 */
export async function spawnGatewayCli(flags: string[] = [], options: { key?: string } = {}): Promise<SpawnedGateway> {
  const child = spawn(process.execPath, [CLI, '--port', '0', '--headless', '--executable-path', testChromePath(), ...flags]);
  let banner = '';
  const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      banner += d.toString();
      const url = /MCP \(Streamable HTTP\)\s+(\S+)/.exec(banner)?.[1];
      const key = options.key ?? /API key\s+(\S+)/.exec(banner)?.[1];
      if (url && key) resolve({ url, key });
    });
    child.once('exit', (code) => reject(new Error(`gateway exited early (${code}): ${banner}`)));
  });
  const client = new Client({ name: 'spawned-gateway-test', version: '1' });
  const local = new URL(url);
  local.hostname = '127.0.0.1';
  await client.connect(new StreamableHTTPClientTransport(local, { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return {
    child,
    url,
    key,
    banner,
    client,
    browserPids: () => processTree(child.pid!).filter((pid) => pid !== child.pid),
    close: async () => {
      child.kill('SIGKILL');
      await client.close().catch(() => undefined);
    },
  };
}

/**
 * One gateway (default flags) and the fixture server for a whole test file, closed after it. `ready` hands them to
 * the file's own `gw`/`server` variables.
 */
export function useGatewayAndFixtures(ready: (pair: { gw: RunningHttpGateway; server: FixtureServer }) => void): void {
  let pair: { gw: RunningHttpGateway; server: FixtureServer } | undefined;
  beforeAll(async () => {
    const [gw, server] = await Promise.all([startGateway(), startFixtureServer()]);
    pair = { gw, server };
    ready(pair);
  });
  afterAll(async () => {
    await pair?.gw.close();
    await pair?.server.close();
  });
}

/** A plain round-robin HTTP balancer: each request goes to the next gateway, with no stickiness of any kind. */
export class RoundRobin {
  private next = 0;
  readonly served: number[];
  private constructor(
    private readonly http: Server,
    readonly url: string,
  ) {
    this.served = [];
  }

  static async start(targets: string[]): Promise<RoundRobin> {
    let balancer: RoundRobin | undefined;
    const http = createServer((req, res) => {
      const index = balancer!.next++ % targets.length;
      balancer!.served.push(index);
      const target = new URL(targets[index]!);
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      // A client that goes away takes its upstream request with it, as balancers do (2026-07-28 cancels that way).
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const address = http.address();
    balancer = new RoundRobin(http, `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    return balancer;
  }

  close(): Promise<void> {
    this.http.closeAllConnections();
    return new Promise((resolve) => this.http.close(() => resolve()));
  }
}

/** The official v2 client pinned to MCP 2026-07-28 (stateless: no initialize, no session). */
export async function modernClient(url: string, key: string, name = 'modern-client'): Promise<ModernClient> {
  const client = new ModernClient({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}
