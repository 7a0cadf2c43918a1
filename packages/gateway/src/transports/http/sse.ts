import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { Deadlines } from '@browsermcp/daemon';
import { ErrorCodes, parseMessage } from '@browsermcp/protocol';
import { LegacySseTransport } from '../legacy-sse.js';
import { newSessionId, type GatewaySession, type SessionRegistry } from '../../sessions.js';
import { sendError } from './security.js';
import { handOver, reserveSession } from './streamable.js';

export interface SseOptions {
  registry: SessionRegistry;
  createServer(sessionId: () => string | undefined, keyHash: string | undefined): Server;
  pingMs: number;
  /** How long a session outlives its closed stream before its tabs close. */
  gracePeriodMs: number;
}

/** Legacy HTTP+SSE (2024-11-05): GET /sse opens the stream, POST /message?sessionId=… sends to it. */
export const legacySse = fp(
  async function legacySse(app: FastifyInstance, opts: SseOptions) {
    const { registry } = opts;
    // The grace periods of dropped streams, one per session.
    const graces = new Deadlines<string>();
    app.addHook('onClose', async () => graces.clearAll());

    app.get('/sse', async (req, reply) => {
      const place = reserveSession(registry, req, reply);
      if (!place) return reply;
      const id = newSessionId();
      handOver(reply);
      const transport = new LegacySseTransport(id, reply.raw, '/message', opts.pingMs);
      const server = opts.createServer(() => id, req.keyHash);
      const session: GatewaySession = { id, kind: 'sse', keyHash: req.keyHash, transport, server, lastSeen: Date.now(), openStreams: 1 };
      registry.add(session);
      place.release();
      transport.onclose = () => {
        session.openStreams = 0;
        // The tabs wait out the grace period: an agent's state survives a dropped connection for a while.
        graces.set(id, opts.gracePeriodMs, () => void registry.close(id, 'SSE stream closed'));
      };
      await server.connect(transport);
      return reply;
    });

    app.post<{ Querystring: { sessionId?: string } }>('/message', async (req, reply) => {
      const id = req.query.sessionId;
      if (!id) return sendError(reply, 400, ErrorCodes.InvalidRequest, 'Missing sessionId query parameter: use the endpoint URL the SSE stream sent.');
      const session = registry.get(id);
      if (session?.kind !== 'sse' || session.keyHash !== req.keyHash || session.openStreams === 0) {
        return sendError(reply, 404, ErrorCodes.SessionNotFound, 'Session not found: open a new stream with GET /sse.');
      }
      const parsed = parseMessage(req.body);
      if (!parsed.ok) return sendError(reply, 400, parsed.error.code, parsed.error.message);
      if (parsed.kind === 'batch') {
        return sendError(reply, 400, ErrorCodes.InvalidRequest, 'Batches are not supported on /message: send one message per request.');
      }
      registry.touch(session);
      if (parsed.kind === 'request' && parsed.message.method === 'tools/call') registry.called(session);
      (session.transport as LegacySseTransport).receive(parsed.message as JSONRPCMessage);
      return reply.code(202).send({ status: 'accepted' });
    });
  },
  { name: 'browsermcp-legacy-sse', fastify: '5.x' },
);
