import { AuthorizationError, ClosedConnectionError, NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { expect, it } from 'vitest';
import { natsFailure } from '../../src/cluster/nats-errors.js';

// The one sorter of NATS errors (pure logic): nats.js's own classes first, words only where it gives no type. The
// cluster tests meet the real ones (nats-auth, cluster, failover); here each kind, and what must not be taken for it.
it('sorts nats.js errors by their classes, and the few it gives no type by their words', () => {
  expect(natsFailure(new RequestError('no responders', { cause: new NoRespondersError('browsermcp.instance.x') }))).toBe('no-responders');
  expect(natsFailure(new NoRespondersError('$JS.API.INFO'))).toBe('no-responders');
  expect(natsFailure(new ClosedConnectionError())).toBe('closed');
  expect(natsFailure(new TimeoutError())).toBe('timeout');
  expect(natsFailure(new RequestError('request failed', { cause: new TimeoutError() }))).toBe('timeout');
  expect(natsFailure(new AuthorizationError('Authorization Violation'))).toBe('authorization');
  // NATS gave up waiting for the handshake: a slow client, tried again, not refused credentials.
  expect(natsFailure(new AuthorizationError('Authentication Timeout'))).toBe('timeout');
  // No type of nats.js's own: Node's TLS handshake, and the server's words for a JetStream that is off.
  expect(natsFailure(new Error('unable to verify the first certificate'))).toBe('tls');
  expect(natsFailure(new Error('jetstream is not enabled'))).toBe('no-jetstream');
  expect(natsFailure(new Error('something else entirely'))).toBe('other');
  expect(natsFailure('a string')).toBe('other');
});
