import type { KV } from '@nats-io/kv';
import { ClusterUnavailableError } from '../errors.js';

/** Errors that mean NATS is not there (as opposed to a compare-and-set that lost, which the store handles). */
const CONNECTION_ERRORS = new Set(['TimeoutError', 'ClosedConnectionError', 'RequestError', 'NoRespondersError', 'ConnectionError', 'DrainingConnectionError']);

/** What NATS says when the cluster's account is at a JetStream limit (nats-config's `jetstream { … }`). */
const LIMIT_REACHED = /resource limits exceeded for account|insufficient (storage )?resources|maximum consumers limit reached/i;

function unavailable(error: unknown): unknown {
  const name = (error as { name?: unknown })?.name;
  if (typeof name === 'string' && CONNECTION_ERRORS.has(name)) return new ClusterUnavailableError((error as Error).message);
  const message = error instanceof Error ? error.message : '';
  if (!LIMIT_REACHED.test(message)) return error;
  return new ClusterUnavailableError(
    `NATS refused the cluster's store a write (${message}): its account is at the limit nats.conf gives it. Raise max_file (nats-config --max-store) or max_consumers there and reload nats-server, or find what fills it (a daemon logs an instance whose records pass what it keeps)`,
  );
}

/** Rethrows a failure that is the store's (NATS away, a limit reached), for a compare-and-set loop that retries the rest. */
export function rethrowUnavailable(error: unknown): void {
  if (error instanceof ClusterUnavailableError) throw error;
}

/**
 * The bucket, with NATS being away turned into ClusterUnavailable: the router then answers "the cluster store cannot
 * be reached", not a timeout of some internal request.
 */
export function unavailableWhenDown(kv: KV, down: () => boolean): KV {
  return new Proxy(kv, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (down()) return Promise.reject(new ClusterUnavailableError('the connection to NATS is lost and is being retried'));
        try {
          const result: unknown = value.apply(target, args);
          return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(unavailable(error))) : result;
        } catch (error) {
          throw unavailable(error);
        }
      };
    },
  });
}

/** `request()` with NATS being away turned into ClusterUnavailable, for what reads the bucket past its KV methods. */
export function unlessDown<T>(down: () => boolean, request: () => Promise<T>): Promise<T> {
  if (down()) return Promise.reject(new ClusterUnavailableError('the connection to NATS is lost and is being retried'));
  return request().catch((error: unknown) => Promise.reject(unavailable(error)));
}
