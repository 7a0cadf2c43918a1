import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway, text } from './helpers.js';

// Slow and greedy clients: one address cannot take every connection, and a request that trickles in is cut.
let gw: RunningHttpGateway;
const LIMIT = 100;

beforeAll(async () => {
  gw = await startGateway(['--max-connections-per-address', String(LIMIT), '--request-timeout', '2']);
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
function slowClient(localAddress: string): Promise<Slow> {
  const { port } = new URL(gw.url);
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

function healthFrom(localAddress: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(`${gw.url}/health`, { localAddress }, (res) => {
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

    // The held ones are cut once their request is late (408), which frees the address again.
    await Promise.all(slow.map((s) => s.closed));
    const cut = slow.filter((s) => !s.answer.startsWith('HTTP/1.1 503'));
    expect(cut).toHaveLength(LIMIT);
    expect(cut.every((s) => s.answer === '' || s.answer.startsWith('HTTP/1.1 408'))).toBe(true);
    expect(await healthFrom('127.0.0.2')).toBe(200);
  });

  it('refuses limits that are not whole numbers in range, naming the flag', async () => {
    await expect(startGateway(['--max-connections-per-address', '0'])).rejects.toThrow(
      '--max-connections-per-address must be a whole number from 1 to 100000, got "0".',
    );
    await expect(startGateway(['--request-timeout', 'soon'])).rejects.toThrow('--request-timeout must be a whole number from 1 to 3600, got "soon".');
  });
});
