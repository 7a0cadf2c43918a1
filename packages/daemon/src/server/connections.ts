import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How many connections one client address may hold, and how long a request may take to arrive. */
export interface ConnectionLimits {
  /** Open connections per client address (WebSockets and streams included); more are answered 503 and closed. */
  maxConnectionsPerAddress: number;
  /** A request's headers and body must arrive within this (its headers within 10 s of it): slow clients are cut. */
  requestTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { maxConnectionsPerAddress: 256, requestTimeoutMs: 30_000 };

const HEADERS_TIMEOUT_MS = 10_000;
/** Node checks request and header timeouts on this interval (30 s by default, which would let a slow client stay). */
const CHECK_INTERVAL_MS = 1_000;

/** Fastify options that time out a request's headers and body, so a client sending a byte a minute is cut. */
export function requestTimeouts(limits: ConnectionLimits): {
  requestTimeout: number;
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number };
} {
  const headersTimeout = Math.min(HEADERS_TIMEOUT_MS, limits.requestTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    http: { headersTimeout, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: CHECK_INTERVAL_MS },
  };
}

/**
 * Counts open connections per client address and answers one past `max` with a 503 that names the limit, so slow or
 * greedy clients from one address cannot take every descriptor the server has and lock others out.
 */
export function limitConnectionsPerAddress(server: Server, max: number, flag: string): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      const body = `Too many connections from ${address} (limit ${max}, ${flag}); close some and retry.\n`;
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      socket.destroySoon?.();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
