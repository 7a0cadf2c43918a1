import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { processTree } from './proc.js';

/** The bench package's folder (this file runs from src/ under vitest and from dist/ when built). */
export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));

export type Dialect = 'browsermcp' | 'playwright' | 'devtools';
export type ServerId = 'ours-http' | 'ours-stdio' | 'playwright-mcp' | 'playwright-mcp-http' | 'chrome-devtools-mcp';

export interface ServerSpec {
  id: ServerId;
  label: string;
  dialect: Dialect;
  transport: 'http' | 'stdio';
}

export const SERVERS: Record<ServerId, ServerSpec> = {
  'ours-http': { id: 'ours-http', label: 'browsermcp (HTTP)', dialect: 'browsermcp', transport: 'http' },
  'ours-stdio': { id: 'ours-stdio', label: 'browsermcp (stdio)', dialect: 'browsermcp', transport: 'stdio' },
  'playwright-mcp': { id: 'playwright-mcp', label: '@playwright/mcp (stdio)', dialect: 'playwright', transport: 'stdio' },
  'playwright-mcp-http': { id: 'playwright-mcp-http', label: '@playwright/mcp (HTTP)', dialect: 'playwright', transport: 'http' },
  'chrome-devtools-mcp': { id: 'chrome-devtools-mcp', label: 'chrome-devtools-mcp (stdio)', dialect: 'devtools', transport: 'stdio' },
};

/** Chromium flags every server's browser gets (ours adds the same ones itself). */
export const QUIET_FLAGS = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export interface Connection {
  client: Client;
  close(): Promise<void>;
}

export interface LaunchedServer {
  spec: ServerSpec;
  /** A new MCP session: a new client on the HTTP server, or a new process on stdio. */
  connect(name?: string): Promise<Connection>;
  /** The processes whose trees hold this server and its browsers. */
  rootPids(): number[];
  close(): Promise<void>;
}

export interface ServerEnv {
  chromePath: string;
  /** Node flags for our gateway's process (--cpu-prof…). */
  oursNodeArgs: string[];
  /** Working and output folder for the servers' files (playwright-mcp writes snapshots to files). */
  workDir: string;
}

function packageDir(name: string): string {
  return join(BENCH_DIR, 'node_modules', ...name.split('/'));
}

function binOf(name: string, bin?: string): string {
  const dir = packageDir(name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const rel = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.[bin ?? name.split('/').pop()!];
  if (!rel) throw new Error(`${name} has no bin ${bin ?? ''}`);
  return join(dir, rel);
}

export function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')) as { version: string }).version;
}

export const gatewayCli = (): string => join(packageDir('@browsermcp/gateway'), 'dist', 'cli.js');

/** Fails early, with the fix, when the gateway is not built or does not start under plain Node. */
export function checkGateway(): void {
  const probe = spawnSync(process.execPath, [gatewayCli(), '--version'], { encoding: 'utf8', timeout: 30_000 });
  if (probe.status !== 0) throw new Error(`the gateway CLI does not start (run \`npm run setup\` first): ${probe.stderr || probe.stdout}`);
}

const isRoot = () => process.getuid?.() === 0;

function serverCommand(spec: ServerSpec, env: ServerEnv, port?: number): string[] {
  switch (spec.dialect) {
    case 'browsermcp':
      return [
        ...env.oursNodeArgs,
        gatewayCli(),
        '--headless',
        '--executable-path',
        env.chromePath,
        '--isolated',
        '--log-level',
        'error',
        '--output-dir',
        env.workDir,
        // Uncut snapshots, to compare sizes with peers that do not cut (the default cut is 40,000 characters).
        '--snapshot-max-chars',
        '10000000',
        ...(port !== undefined ? ['--port', String(port), '--host', '127.0.0.1'] : []),
      ];
    case 'playwright': {
      const config = join(env.workDir, 'playwright-mcp.json');
      writeFileSync(config, JSON.stringify({ browser: { launchOptions: { args: QUIET_FLAGS } } }));
      return [
        binOf('@playwright/mcp', 'playwright-mcp'),
        '--config',
        config,
        '--headless',
        '--isolated',
        '--executable-path',
        env.chromePath,
        ...(isRoot() ? ['--no-sandbox'] : []),
        '--output-dir',
        env.workDir,
        // Its Host check allows only the name it was bound to; we bind and connect to 127.0.0.1.
        ...(port !== undefined ? ['--port', String(port), '--host', '127.0.0.1', '--allowed-hosts', `127.0.0.1:${port}`] : []),
      ];
    }
    case 'devtools':
      return [
        binOf('chrome-devtools-mcp'),
        '--headless',
        '--isolated',
        '--executablePath',
        env.chromePath,
        '--no-usage-statistics',
        '--no-performance-crux',
        ...[...(isRoot() ? ['--no-sandbox'] : []), ...QUIET_FLAGS].map((a) => `--chromeArg=${a}`),
      ];
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function killTree(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** Stops a child we spawned and, after it, whatever it left running below it (Chromium). */
async function stopChild(child: ChildProcess): Promise<void> {
  const tree = child.pid ? processTree([child.pid]) : [];
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  }
  killTree(tree.filter((pid) => pid !== child.pid || child.exitCode === null));
}

const tail = (s: string) => s.slice(-2_000);

async function launchHttp(spec: ServerSpec, env: ServerEnv): Promise<LaunchedServer> {
  const port = await freePort();
  const apiKey = randomBytes(16).toString('hex');
  const args = serverCommand(spec, env, port);
  const child = spawn(process.execPath, args, {
    cwd: env.workDir,
    env: { ...process.env, ...(spec.dialect === 'browsermcp' ? { BROWSERMCP_API_KEY: apiKey } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output = tail(output + d.toString())));
  child.stderr!.on('data', (d: Buffer) => (output = tail(output + d.toString())));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${spec.label} exited with ${child.exitCode}:\n${output}`);
    try {
      await fetch(`${base}/mcp`, { method: 'GET', signal: AbortSignal.timeout(1_000) });
      break;
    } catch {
      if (Date.now() > deadline) {
        await stopChild(child);
        throw new Error(`${spec.label} did not listen on ${base} within 30 s:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const open = new Set<Connection>();
  return {
    spec,
    async connect(name = 'bench') {
      const client = new Client({ name, version: '1.0.0' });
      const headers = spec.dialect === 'browsermcp' ? { Authorization: `Bearer ${apiKey}` } : undefined;
      const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), headers ? { requestInit: { headers } } : undefined);
      await client.connect(transport);
      const connection: Connection = {
        client,
        async close() {
          open.delete(connection);
          // End the session on the server (DELETE /mcp), so it closes the session's browser context.
          await transport.terminateSession().catch(() => undefined);
          await client.close().catch(() => undefined);
        },
      };
      open.add(connection);
      return connection;
    },
    rootPids: () => (child.pid ? [child.pid] : []),
    async close() {
      await Promise.all([...open].map((c) => c.close()));
      await stopChild(child);
    },
  };
}

function launchStdio(spec: ServerSpec, env: ServerEnv): LaunchedServer {
  const open = new Map<Connection, StdioClientTransport>();
  return {
    spec,
    async connect(name = 'bench') {
      const client = new Client({ name, version: '1.0.0' });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: serverCommand(spec, env),
        cwd: env.workDir,
        env: process.env as Record<string, string>,
        stderr: 'pipe',
      });
      let output = '';
      transport.stderr?.on('data', (d: Buffer) => (output = tail(output + d.toString())));
      try {
        await client.connect(transport);
      } catch (error) {
        throw new Error(`${spec.label} did not start: ${String(error)}\n${output}`);
      }
      const connection: Connection = {
        client,
        async close() {
          const pid = transport.pid;
          const tree = pid ? processTree([pid]) : [];
          open.delete(connection);
          await client.close().catch(() => undefined);
          // The SDK ends the server process; a browser it leaves behind is ended here, by pid.
          await new Promise((r) => setTimeout(r, 200));
          killTree(tree.filter((p) => p !== pid));
        },
      };
      open.set(connection, transport);
      return connection;
    },
    rootPids: () => [...open.values()].map((t) => t.pid).filter((p): p is number => typeof p === 'number'),
    async close() {
      await Promise.all([...open.keys()].map((c) => c.close()));
    },
  };
}

export async function launchServer(id: ServerId, env: ServerEnv): Promise<LaunchedServer> {
  const spec = SERVERS[id];
  return spec.transport === 'http' ? launchHttp(spec, env) : launchStdio(spec, env);
}

export function makeWorkDir(): string {
  return mkdtempSync(join(tmpdir(), 'browsermcp-bench-'));
}

/**
 * A short hash of our built packages (gateway, daemon, tools dist files). Others may rebuild while a run goes on; a
 * run whose hash changed mixed two builds, and its report says so.
 */
export function ourBuildHash(): string {
  const hash = createHash('sha256');
  for (const name of ['@browsermcp/gateway', '@browsermcp/daemon', '@browsermcp/tools']) {
    const dir = join(packageDir(name), 'dist');
    let files: string[] = [];
    try {
      files = readdirSync(dir)
        .filter((f) => f.endsWith('.js'))
        .sort();
    } catch {
      // Not built: the hash says so by missing files.
    }
    for (const f of files) hash.update(f).update(readFileSync(join(dir, f)));
  }
  return hash.digest('hex').slice(0, 12);
}
