import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway, text } from './helpers.js';

// Slow and greedy clients: one address cannot take every connection, and a request that trickles in is cut.
let gw: RunningHttpGateway;
const LIMIT = 100;

beforeAll(async () => {
  // A request timeout far longer than opening 1,000 sockets takes on a loaded machine: none of the held ones is cut
  // (which would free its place for a later one) before all have come. The cut is the next test's, on its own gateway.
  gw = await startGateway(['--max-connections-per-address', String(LIMIT), '--request-timeout', '120']);
});
afterAll(async () => {
  await gw?.close();
});

interface Slow {
  socket: Socket;
  answer: string;
  closed: Promise<void>;
}

/** A client from `localAddress` that sends the start of a request and then nothing. */
function slowClient(localAddress: string, to: RunningHttpGateway = gw): Promise<Slow> {
  const { port } = new URL(to.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress });
    const slow: Slow = { socket, answer: '', closed: new Promise((done) => socket.once('close', () => done())) };
    socket.on('data', (chunk: Buffer) => (slow.answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n');
      resolve(slow);
    });
    socket.once('error', reject);
  });
}

function healthFrom(localAddress: string, to: RunningHttpGateway = gw): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(`${to.url}/health`, { localAddress }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).once('error', reject);
  });
}

describe('connections', () => {
  it('1,000 slow sockets from one address: past the limit they are answered 503, and another address is served', async () => {
    const slow: Slow[] = [];
    for (let i = 0; i < 1000; i++) slow.push(await slowClient('127.0.0.2'));
    // Those past the limit hear why at once; the first LIMIT wait for their request to time out.
    await expect.poll(() => slow.filter((s) => s.answer.startsWith('HTTP/1.1 503')).length, { timeout: 10_000 }).toBe(1000 - LIMIT);
    const refused = slow.find((s) => s.answer.startsWith('HTTP/1.1 503'))!;
    expect(refused.answer).toContain('Too many connections from 127.0.0.2 (limit 100, --max-connections-per-address)');
    expect(refused.answer).toMatch(/Retry-After: 5/i);

    // Meanwhile a client from another address gets its answers.
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
    const client = await connectClient(gw);
    expect(text(await client.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }))).toContain('No open tabs');
    await client.close();

    // The held ones, LIMIT of them, heard nothing; once they go, the address is served again.
    const held = slow.filter((s) => !s.answer.startsWith('HTTP/1.1 503'));
    expect(held).toHaveLength(LIMIT);
    expect(held.every((s) => s.answer === '')).toBe(true);
    for (const s of held) s.socket.destroy();
    await Promise.all(slow.map((s) => s.closed));
    // (once the gateway has seen them close)
    await expect.poll(() => healthFrom('127.0.0.2'), { timeout: 10_000 }).toBe(200);
  });

  it('cuts a request that trickles in past --request-timeout (408), which frees its place', async () => {
    const strict = await startGateway(['--max-connections-per-address', '2', '--request-timeout', '1']);
    try {
      const slow = [await slowClient('127.0.0.3', strict), await slowClient('127.0.0.3', strict)];
      await Promise.all(slow.map((s) => s.closed));
      expect(slow.every((s) => s.answer === '' || s.answer.startsWith('HTTP/1.1 408'))).toBe(true);
      expect(slow.some((s) => s.answer.startsWith('HTTP/1.1 408'))).toBe(true);
      expect(await healthFrom('127.0.0.3', strict)).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('refuses limits that are not whole numbers in range, naming the flag', async () => {
    await expect(startGateway(['--max-connections-per-address', '0'])).rejects.toThrow(
      '--max-connections-per-address must be a whole number from 1 to 100000, got "0".',
    );
    await expect(startGateway(['--request-timeout', 'soon'])).rejects.toThrow('--request-timeout must be a whole number from 1 to 3600, got "soon".');
  });
});
