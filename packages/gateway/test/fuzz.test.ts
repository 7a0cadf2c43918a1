import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { startGateway } from './helpers.js';

// Hostile input: whatever arrives, the gateway answers with the right error and keeps serving.
let gw: RunningHttpGateway;
let sessionId: string;

const STANDARD = new Set([-32700, -32600, -32601, -32602, -32603]);
const headers = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${gw.apiKey}`,
  ...extra,
});

beforeAll(async () => {
  gw = await startGateway(['--log-level', 'silent']);
  const init = await fetch(`${gw.url}/mcp`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    }),
  });
  sessionId = init.headers.get('mcp-session-id')!;
  await init.text();
});
afterAll(async () => {
  await gw?.close();
});

/** Things shaped like JSON-RPC messages, with every field possibly wrong. */
const messageLike = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.integer(), fc.constant(null)),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.boolean(), fc.object()),
    method: fc.oneof(fc.constantFrom('tools/call', 'tools/list', 'ping', 'initialize', 'resources/list', 'notifications/cancelled'), fc.string(), fc.integer()),
    params: fc.oneof(
      fc.object(),
      fc.array(fc.jsonValue()),
      fc.string(),
      fc.record({ name: fc.oneof(fc.string(), fc.constantFrom('browser_navigate', 'browser_click')), arguments: fc.jsonValue() }),
    ),
    result: fc.jsonValue(),
    error: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

async function healthy(): Promise<void> {
  const res = await fetch(`${gw.url}/health`);
  expect(res.status).toBe(200);
}

function errorCodeOf(body: string): number | undefined {
  // JSON answers carry the error object; SSE answers carry it in the data line.
  const json = body.startsWith('{') ? body : /^data: (\{.*\})$/m.exec(body)?.[1];
  if (!json) return undefined;
  try {
    return (JSON.parse(json) as { error?: { code?: number } }).error?.code;
  } catch {
    return undefined;
  }
}

describe('fuzzing /mcp', () => {
  it('answers text that is not JSON with 400 and -32700', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1 }).filter((s) => {
          try {
            JSON.parse(s);
            return false;
          } catch {
            return true;
          }
        }),
        async (body) => {
          const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: headers({ 'mcp-session-id': sessionId }), body });
          expect(res.status).toBe(400);
          expect(errorCodeOf(await res.text())).toBe(-32700);
        },
      ),
      { numRuns: 60 },
    );
    await healthy();
  });

  it('answers random JSON-RPC-like messages in a session with a client error, never a crash', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    await fc.assert(
      fc.asyncProperty(fc.oneof(messageLike, fc.jsonValue()), async (message) => {
        const res = await fetch(`${gw.url}/mcp`, {
          method: 'POST',
          headers: headers({ 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }),
          body: JSON.stringify(message),
        });
        const body = await res.text();
        expect(res.status).toBeLessThan(500);
        if (res.status === 400) expect(STANDARD.has(errorCodeOf(body) ?? -1) || errorCodeOf(body) === -32000).toBe(true);
      }),
      { numRuns: 150 },
    );
    await healthy();
    (globalThis as { gc?: () => void }).gc?.();
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(50 * 1024 * 1024);
  });

  it('answers random bodies without a session with 400 and no session made', async () => {
    await fc.assert(
      fc.asyncProperty(
        messageLike.filter((m) => m.method !== 'initialize'),
        async (message) => {
          const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: headers(), body: JSON.stringify(message) });
          expect(res.status).toBe(400);
          await res.text();
        },
      ),
      { numRuns: 60 },
    );
    const health = (await (await fetch(`${gw.url}/health`)).json()) as { activeSessions: number };
    expect(health.activeSessions).toBe(1);
  });

  it('answers random /message posts with 400 or 404, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.oneof(fc.jsonValue(), messageLike), async (sid, message) => {
        const res = await fetch(`${gw.url}/message?sessionId=${encodeURIComponent(sid)}`, {
          method: 'POST',
          headers: headers(),
          body: JSON.stringify(message),
        });
        expect([400, 404]).toContain(res.status);
        await res.text();
      }),
      { numRuns: 60 },
    );
    await healthy();
  });
});

describe('fuzzing stdio', () => {
  it('answers every malformed line and keeps running', async () => {
    const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
    const child = spawn(process.execPath, [cli, '--headless'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    const lines = fc.sample(
      fc.oneof(
        fc.string({ minLength: 1 }).filter(
          (s) =>
            !s.includes('\n') &&
            s.trim() !== '' &&
            (() => {
              try {
                JSON.parse(s);
                return false;
              } catch {
                return true;
              }
            })(),
        ),
        fc
          .jsonValue()
          .map((v) => JSON.stringify(v))
          .filter((s) => !/^\{.*"jsonrpc":"2\.0"/.test(s)),
      ),
      { numRuns: 80, seed: 42 },
    );
    for (const line of lines) child.stdin.write(`${line}\n`);
    await expect.poll(() => out.split('\n').filter(Boolean).length, { timeout: 10_000 }).toBe(lines.length);
    for (const answer of out.split('\n').filter(Boolean)) {
      const code = (JSON.parse(answer) as { error: { code: number } }).error.code;
      expect([-32700, -32600]).toContain(code);
    }
    expect(child.exitCode).toBeNull();
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
  });
});
