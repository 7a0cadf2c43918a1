import websocket from '@fastify/websocket';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { DEFAULT_CONNECTION_LIMITS, limitConnectionsPerAddress, requestTimeouts } from './connections.js';
import { daemonCore } from './core.js';
import { extensionEndpoint } from './extension-endpoint.js';
import { httpApi } from './http.js';
import type { DaemonAppOptions } from './options.js';
import { proxyEndpoint } from './proxy.js';

/**
 * The daemon's Fastify app: /health, /sessions, /commands, WebSocket /extension and /mcp (only /health and
 * /extension with `commandEndpoints: false`). Not listening yet:
 * call `app.listen({host, port})`, or `app.inject` in tests. Closing the app closes its sockets, not the router.
 */
export async function buildDaemonApp(
  options: DaemonAppOptions,
  fastifyOptions: Pick<FastifyServerOptions, 'logger' | 'loggerInstance'> = {},
): Promise<FastifyInstance> {
  // One log line per session and per command is written by the endpoints; Fastify's two per request would drown them.
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits };
  const app = Fastify({
    ...fastifyOptions,
    ...requestTimeouts(limits),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    // On shutdown every socket goes at once: a connection a browser left open mid-request (a refused page fetch)
    // would otherwise hold close() until the browser drops it.
    forceCloseConnections: true,
  });
  limitConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress, '--max-connections-per-address');
  await app.register(websocket, { options: { maxPayload: 64 * 1024 * 1024 } });
  await app.register(daemonCore, options);
  await app.register(httpApi);
  await app.register(extensionEndpoint);
  if (options.commandEndpoints !== false) await app.register(proxyEndpoint);
  return app;
}
