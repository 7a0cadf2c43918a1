import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCPClient, MCPError, type FetchLike, type JSONRPCNotification, type Progress } from '../src/index.js';

// @modelcontextprotocol/server-everything in streamableHttp mode: a server nobody here wrote, with resumability
// (an in-memory event store) and a long-running tool that sends progress.
const require = createRequire(import.meta.url);
const BIN = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const LOOPBACK_ONLY = fileURLToPath(new URL('./loopback-only.mjs', import.meta.url));

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Starts the server on a free port; a port taken meanwhile by someone else makes it exit, and we try another. */
async function startEverything(): Promise<{ url: string; child: ChildProcess }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', LOOPBACK_ONLY, BIN, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const listening = await new Promise<boolean>((resolve) => {
      let err = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        if (err.includes('listening on port')) resolve(true);
      });
      child.once('exit', () => resolve(false));
    });
    if (listening) return { url: `http://127.0.0.1:${port}/mcp`, child };
  }
  throw new Error('server-everything did not start');
}

let everything: { url: string; child: ChildProcess };
beforeAll(async () => {
  everything = await startEverything();
});
afterAll(async () => {
  const { child } = everything ?? {};
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

describe('@browsermcp/client against server-everything (streamableHttp)', () => {
  it('lists and calls its tools', async () => {
    const client = new MCPClient(everything.url);
    try {
      const info = await client.connect();
      expect(info.protocolVersion).toBe('2025-11-25');
      expect(client.getSessionId()).toMatch(/^[0-9a-f-]{36}$/);
      const names = (await client.listTools()).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
      expect((await client.call('echo', { message: 'hello' })).text).toBe('Echo: hello');
      expect((await client.call('get-sum', { a: 2, b: 3 })).text).toContain('5');
      // Its McpServer wraps "Tool … not found" into an isError result; the client turns it back into the error.
      const bad = (await client.call('no-such-tool').catch((e: unknown) => e)) as MCPError;
      expect(bad).toBeInstanceOf(MCPError);
      expect(bad.isToolNotFound()).toBe(true);
      const invalid = await client.call('get-sum', { a: 'two' });
      expect(invalid.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('passes progress notifications of the long-running tool to onProgress and to listeners', async () => {
    const client = new MCPClient(everything.url);
    const notifications: JSONRPCNotification[] = [];
    client.on('notification', (n) => notifications.push(n));
    try {
      const progress: Progress[] = [];
      const result = await client.call('trigger-long-running-operation', { duration: 0.4, steps: 4 }, { onProgress: (p) => progress.push(p) });
      expect(result.text).toContain('Long running operation completed');
      expect(progress.map((p) => [p.progress, p.total])).toEqual([
        [1, 4],
        [2, 4],
        [3, 4],
        [4, 4],
      ]);
      expect(notifications.filter((n) => n.method === 'notifications/progress')).toHaveLength(4);
    } finally {
      await client.close();
    }
  });

  it('resumes a broken stream with Last-Event-ID and gets the answer it missed', async () => {
    // The connection of the tools/call stream breaks just as the answer arrives; the server has stored it.
    const resumedWith: string[] = [];
    const breaking: FetchLike = async (url, init) => {
      if (init?.method === 'GET') resumedWith.push(new Headers(init.headers).get('last-event-id') ?? '');
      const res = await fetch(url, init);
      if (init?.method !== 'POST' || !String(init.body).includes('"tools/call"') || !res.body) return res;
      const reader = res.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          if (new TextDecoder().decode(value).includes('"result"')) {
            await reader.cancel();
            controller.error(new TypeError('terminated: connection reset'));
            return;
          }
          controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const client = new MCPClient(everything.url, { fetch: breaking });
    try {
      const progress: number[] = [];
      const result = await client.call('trigger-long-running-operation', { duration: 0.2, steps: 2 }, { onProgress: (p) => progress.push(p.progress) });
      expect(result.text).toContain('Long running operation completed');
      expect(progress).toEqual([1, 2]);
      expect(resumedWith).toHaveLength(1);
      expect(resumedWith[0]).not.toBe('');
    } finally {
      await client.close();
    }
  });
});
