import { createServer, type Server } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { joinCluster } from '../../src/cluster/join.js';

// A NATS that drops the connection during the handshake, as a refusal of wrong credentials does when the reset
// reaches a busy client before it read the refusal: nats.js then waits out its whole 20 s connect timeout, saying
// nothing (a CI run's daemon given wrong credentials printed nothing for 19 s). Here the first connection is dropped
// that way and the next one refused in words.
let server: Server | undefined;
afterEach(() => {
  server?.close();
});

it('says that NATS refused the credentials, not 20 s later, when the first handshake is cut off', async () => {
  let connections = 0;
  server = createServer((socket) => {
    const first = ++connections === 1;
    socket.write('INFO {"server_id":"x","version":"2.9.10","proto":1,"host":"127.0.0.1","port":1,"max_payload":1048576,"auth_required":true}\r\n');
    socket.once('data', () => {
      if (first) return socket.resetAndDestroy();
      socket.end("-ERR 'Authorization Violation'\r\n");
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
  await expect(joinCluster({ url: `nats://daemon:wrong@127.0.0.1:${port}`, version: 'test', logger }, () => false)).rejects.toThrow(
    `NATS at nats://daemon:***@127.0.0.1:${port} refused this daemon's credentials`,
  );
  // Asked again after the cut-off handshake: the second answer is the one said.
  expect(connections).toBe(2);
});
