import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildDaemonApp, SessionRouter } from '../../src/index.js';

// The daemon's HTTP server holds slow and greedy clients to the same limits as the gateway's (one shared module).
let app: FastifyInstance;
let router: SessionRouter;
let port: number;

beforeAll(async () => {
  router = new SessionRouter();
  app = await buildDaemonApp({ router, connectionLimits: { maxConnectionsPerAddress: 3, requestTimeoutMs: 1000 } });
  port = Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
});
afterAll(async () => {
  await app.close();
  await router.close();
});

/** Sends the start of a request and nothing more; resolves with what the daemon answered once it closed. */
function trickle(): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.3' }, () => socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(answer));
  });
}

it('answers connections past the per-address limit 503, and cuts a request that trickles in with 408', async () => {
  const answers = await Promise.all(Array.from({ length: 5 }, trickle));
  const refused = answers.filter((a) => a.startsWith('HTTP/1.1 503'));
  expect(refused).toHaveLength(2);
  expect(refused[0]).toContain('Too many connections from 127.0.0.3 (limit 3, --max-connections-per-address)');
  expect(answers.filter((a) => a.startsWith('HTTP/1.1 408'))).toHaveLength(3);
  // The limit is per address: loopback's usual address was never affected.
  expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
});
