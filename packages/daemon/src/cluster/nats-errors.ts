import {
  AuthorizationError,
  ClosedConnectionError,
  DrainingConnectionError,
  NoRespondersError,
  RequestError,
  TimeoutError,
  UserAuthenticationExpiredError,
} from '@nats-io/transport-node';

/**
 * What went wrong with NATS, sorted in one place: by the error classes nats.js gives (its RequestError's cause, its
 * closed, timeout and authorization errors), and by words only where it gives no type (TLS, which Node's own
 * handshake fails; a JetStream that is not enabled, which the server answers in text).
 */
export type NatsFailure = 'no-responders' | 'closed' | 'timeout' | 'authorization' | 'tls' | 'no-jetstream' | 'other';

export function natsFailure(error: unknown): NatsFailure {
  if (error instanceof RequestError && error.isNoResponders()) return 'no-responders';
  if (error instanceof NoRespondersError || (error instanceof Error && error.cause instanceof NoRespondersError)) return 'no-responders';
  if (error instanceof ClosedConnectionError || error instanceof DrainingConnectionError) return 'closed';
  if (error instanceof TimeoutError || (error instanceof Error && error.cause instanceof TimeoutError)) return 'timeout';
  // The server gave up waiting for this client's handshake (its authorization timeout): slow, not refused.
  if (error instanceof AuthorizationError && /^authentication timeout$/i.test(error.message)) return 'timeout';
  if (error instanceof AuthorizationError || error instanceof UserAuthenticationExpiredError) return 'authorization';
  const message = error instanceof Error ? error.message : String(error);
  if (/authorization violation|authentication/i.test(message)) return 'authorization';
  if (/jetstream (is )?not (enabled|available)/i.test(message)) return 'no-jetstream';
  if (/tls|certificate|ssl|self.signed|handshake/i.test(message)) return 'tls';
  if (/closed|disconnect|reconnect/i.test(message)) return 'closed';
  if (/timeout/i.test(message)) return 'timeout';
  return 'other';
}
