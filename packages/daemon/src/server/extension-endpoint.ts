import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import { CloseCodes, ExtensionConnection } from './extensions.js';
import { watchHeartbeat } from './heartbeat.js';

/**
 * WebSocket /extension: one socket per browser running the extension (the Origin check is in the core guard).
 * Each socket becomes an ExtensionConnection: an Executor registered with the router once it has said hello.
 */
async function extensionEndpointPlugin(app: FastifyInstance): Promise<void> {
  const { router, extensions, options } = app.browsermcp;
  const sockets = new Set<WebSocket>();

  app.get('/extension', { websocket: true }, (socket, request) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    watchHeartbeat(socket, options.heartbeatMs);
    new ExtensionConnection({
      socket,
      router,
      registry: extensions,
      log: request.log,
      verifier: options.verifier,
      pairingSecret: options.pairingSecret,
      holdProofsFor: options.holdProofsFor,
      holdProofRenewMs: options.holdProofRenewMs,
      port: request.socket.localPort ?? 0,
      helloTimeoutMs: options.helloTimeoutMs,
      gracePeriodMs: options.gracePeriodMs,
      sessionSettings: options.sessionSettings,
      files: options.extensionFiles,
    });
  });

  app.addHook('preClose', async () => {
    for (const socket of sockets) socket.close(CloseCodes.Shutdown, 'the daemon is shutting down');
  });
}

export const extensionEndpoint = fp(extensionEndpointPlugin, {
  name: 'browsermcp-extension-endpoint',
  fastify: '5.x',
  dependencies: ['browsermcp-core', '@fastify/websocket'],
});
export default extensionEndpoint;
