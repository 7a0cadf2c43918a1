import { readFileSync } from 'node:fs';
import { Kvm } from '@nats-io/kv';
import { connect, nkeyAuthenticator } from '@nats-io/transport-node';
import { expect, it, onTestFinished } from 'vitest';
import { signToken } from '../../src/index';
import { token } from '../../src/cluster/names';
import { startSecureNats } from '../helpers/secure-nats';
import { authenticatedExtension, connectPeer, idOf, rpc } from '../helpers/ws-peer';

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';

it("bounds what one daemon's seed takes from NATS: a full store refuses every daemon's writes, with the fix named", async () => {
  // The account at 2 MB of disk (1G by default: `nats-config --max-store`), as nats-config writes it.
  const nats = await startSecureNats(['a', 'b'], '', '2M');
  onTestFinished(() => nats.close());
  const a = await nats.daemon('a', SECRET);
  onTestFinished(() => a.close());
  const seed = new TextEncoder().encode(readFileSync(nats.seedFile('b'), 'utf8').trim());
  const nc = await connect({ servers: nats.nats.url, authenticator: nkeyAuthenticator(seed), inboxPrefix: '_INBOX.browsermcp.b' });
  onTestFinished(() => nc.close());
  const router = await new Kvm(nc).open('browsermcp_router');

  // Ann's browser and client on daemon a.
  const ext = await authenticatedExtension(a.app, a.address.replace('http', 'ws'), 'ann', idOf('ann-laptop'), SECRET);
  onTestFinished(() => ext.ws.terminate());
  const peer = await connectPeer(`${a.address.replace('http', 'ws')}/mcp`, { origin: undefined });
  onTestFinished(() => peer.ws.terminate());
  await rpc(peer, 'mcp_handshake', { accessToken: await signToken({ userId: 'ann', secret: SECRET }) });
  for (let i = 0; i < 200 && (await rpc(peer, 'list_extensions')).result.extensions.length === 0; i++) await new Promise((r) => setTimeout(r, 25));

  // b's seed writes keys of its own until NATS refuses them, in smaller and smaller pieces to the last byte.
  let written = 0;
  for (const size of [200_000, 20_000, 2_000, 200, 20]) {
    for (let tries = 0; tries < 200; tries++) {
      try {
        await router.put(`s.b.${token(`junk-${written++}`)}`, 'x'.repeat(size));
      } catch (error) {
        expect((error as Error).message).toContain('resource limits exceeded for account');
        break;
      }
    }
  }
  expect(written).toBeGreaterThan(9);
  expect(written).toBeLessThan(1_000);

  // Daemon a's next session cannot be written: her client hears why and what to do, not a timeout or a bare NATS error.
  const refused = await rpc(peer, 'connect', { extension_id: idOf('ann-laptop') });
  expect(refused.error?.message).toContain('resource limits exceeded for account');
  expect(refused.error?.message).toContain('Raise max_file (nats-config --max-store)');

  // Nor can it hold more than the account's consumers (16 a daemon): NATS refuses the next watch.
  let watches = 0;
  for (; watches < 200; watches++) {
    const refusal = await router.watch({ key: 's.b.*' }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    if (refusal !== undefined) {
      expect(refusal).toContain('maximum consumers limit reached');
      break;
    }
  }
  expect(watches).toBeLessThan(32);
});
