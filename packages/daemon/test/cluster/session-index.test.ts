import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { NatsServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { listKeys } from '../../src/cluster/keys';
import { token } from '../../src/cluster/names';
import { SessionIndex } from '../../src/cluster/session-index';

let nats: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await NatsServer.start();
  nc = await connect({ servers: nats.url });
});

afterAll(async () => {
  await nc.close();
  await nats.close();
});

const version = (sessionId: string, padding = 0) => JSON.stringify({ sessionId, executorId: 'laptop', pad: 'x'.repeat(padding) });

it("keeps at most its bound of one instance's versions, said once, and takes the instance's versions again as room frees", async () => {
  const kv = await new Kvm(nc).create('index_bound', { history: 1 });
  const full: string[] = [];
  // A bound of 10 KB for the test (64 MiB in a daemon): b writes twenty versions of about 1 KB, a writes one.
  const index = new SessionIndex(
    kv,
    (filter) => listKeys(kv, filter),
    (instance) => full.push(instance),
    10_000,
  );
  await index.start();
  for (let i = 0; i < 20; i++) await kv.put(`s.b.${token(`junk-${i}`)}`, version(`junk-${i}`, 1_000));
  await kv.put(`s.a.${token('hers')}`, version('hers'));
  await vi.waitFor(() => expect(index.versions('hers')).toHaveLength(1), { timeout: 5_000, interval: 20 });
  const kept = Array.from({ length: 20 }, (_, i) => index.versions(`junk-${i}`).length).reduce((a, b) => a + b, 0);
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(10);
  expect(full).toEqual(['b']);
  // The full read a minute later keeps the same bound, and another instance's versions are not held to b's.
  await index.refresh();
  expect(Array.from({ length: 20 }, (_, i) => index.versions(`junk-${i}`).length).reduce((a, b) => a + b, 0)).toBe(kept);
  expect(full).toEqual(['b']);
  // b deletes what it wrote: its next version is kept.
  for (let i = 0; i < 20; i++) await kv.delete(`s.b.${token(`junk-${i}`)}`);
  await kv.put(`s.b.${token('his')}`, version('his'));
  await vi.waitFor(() => expect(index.versions('his')).toHaveLength(1), { timeout: 5_000, interval: 20 });
  index.stop();
});
