import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import {
  isInitializeRequest,
  isLegacyRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpHttpHandler,
  type Server,
} from '@modelcontextprotocol/server';
import { ErrorCodes } from '@browsermcp/protocol';
import { BoundedEventStore } from '../../event-store.js';
import { newSessionId, type GatewaySession, type SessionRegistry } from '../../sessions.js';
import { sendError } from './security.js';

export interface StreamableOptions {
  registry: SessionRegistry;
  /** Makes the MCP server for a new 2025 session; `sessionId` returns its id once the transport has one. */
  createServer(sessionId: () => string | undefined, keyHash: string | undefined): Server;
  /** Serves 2026-07-28 requests, statelessly; the caller's key hash travels as its authInfo's clientId. */
  modern: McpHttpHandler;
  eventStoreSize: number;
}

/** What the modern handler's server factory learns of a request's caller: its key (a hash), as authInfo. */
export function callerAuth(keyHash: string | undefined): { token: string; clientId: string; scopes: string[] } {
  return { token: '', clientId: keyHash ?? NO_KEY, scopes: [] };
}

/** The owner of every state when the gateway runs without keys (--no-auth). */
export const NO_KEY = 'no-key';

// Batches were removed from the protocol in 2025-06-18; older sessions may still send them.
const BATCH_LAST_VERSION = '2025-03-26';

/**
 * A place for a new session under the gateway's session limits, or undefined once the refusal (429 or 503 with
 * Retry-After) is sent: both HTTP transports open sessions through it.
 */
export function reserveSession(registry: SessionRegistry, req: FastifyRequest, reply: FastifyReply): { release(): void } | undefined {
  const place = registry.reserve(req.keyHash);
  if (!('refused' in place)) return place;
  reply.header('Retry-After', '60');
  sendError(reply, place.status, ErrorCodes.RateLimited, place.refused);
  return undefined;
}

/** Whether a body calls a tool (alone or in a batch): what tells a session in use from one that was only looked at. */
function isToolCall(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call');
}

/** The version the SDK answers an initialize with: the client's if supported, else the latest. */
function negotiatedVersion(body: unknown): string {
  const asked = (body as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
  return typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
}

/** Fastify's reply headers (CORS among them) onto the raw response the SDK transport writes. */
export function handOver(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value as string | number | readonly string[]);
  }
  reply.hijack();
}

/**
 * Streamable HTTP at /mcp: 2025-11-25 (back to 2025-03-26) in sessions (POST, GET and DELETE with Mcp-Session-Id),
 * and 2026-07-28 statelessly (POST only), told apart per request by the SDK's own classification.
 */
export const streamableHttp = fp(
  async function streamableHttp(app: FastifyInstance, opts: StreamableOptions) {
    const { registry } = opts;

    // Finds the caller's session; answers 400/404 itself and returns undefined when there is none.
    const sessionFor = (req: FastifyRequest, reply: FastifyReply): GatewaySession | undefined => {
      const id = req.headers['mcp-session-id'];
      if (typeof id !== 'string' || !id) {
        sendError(reply, 400, ErrorCodes.InvalidRequest, 'Bad Request: Mcp-Session-Id header is required (send initialize first).');
        return undefined;
      }
      const session = registry.get(id);
      // A session bound to another key answers like an unknown one: ids must not be probed.
      if (session?.kind !== 'streamable' || session.keyHash !== req.keyHash) {
        // Told why only where the id could be this key's: ended sessions carry no key, so only the reason is said.
        const why = !session ? registry.endedWhy(id) : undefined;
        sendError(reply, 404, ErrorCodes.SessionNotFound, `Session not found: ${why ?? 'it ended or expired'}. Start a new one with initialize.`);
        return undefined;
      }
      registry.touch(session);
      if (isToolCall(req.body)) registry.called(session);
      return session;
    };

    // Counted until the response ends: the idle sweep leaves a session alone while it has one open.
    /** A method only a 2025 session has, asked without one: 405, POST the one method left, and `what` it is for. */
    const onlyWithSession = (reply: FastifyReply, what: string): FastifyReply => {
      reply.header('Allow', 'POST');
      return sendError(reply, 405, ErrorCodes.InvalidRequest, `Method not allowed: ${what}`);
    };

    const holdOpen = (session: GatewaySession, reply: FastifyReply): void => {
      session.openStreams++;
      reply.raw.once('close', () => {
        session.openStreams--;
        registry.touch(session);
      });
    };

    // Node (req, res) face of the stateless handler; the caller's key rides along as its authInfo.
    const serveModern = (keyHash: string | undefined) =>
      toNodeHandler({ fetch: (request, options) => opts.modern.fetch(request, { ...options, authInfo: callerAuth(keyHash) }) });

    app.post('/mcp', async (req, reply) => {
      const body = req.body;
      // A request that carries the 2026-07-28 envelope (or claims it in its headers) is the stateless handler's,
      // errors included (a header that does not match the body, a version we do not speak).
      if (req.headers['mcp-session-id'] === undefined && !(await isLegacyRequest(await toWebRequest(req.raw, body), body))) {
        handOver(reply);
        await serveModern(req.keyHash)(req.raw, reply.raw, body);
        return reply;
      }
      if (req.headers['mcp-session-id'] === undefined) {
        if (!isInitializeRequest(body)) {
          return sendError(reply, 400, ErrorCodes.InvalidRequest, 'Bad Request: Mcp-Session-Id header is required for anything but initialize.');
        }
        const place = reserveSession(registry, req, reply);
        if (!place) return reply;
        let session: GatewaySession | undefined;
        const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
          sessionIdGenerator: newSessionId,
          eventStore: new BoundedEventStore(opts.eventStoreSize),
          onsessioninitialized: (id) => {
            session = {
              id,
              kind: 'streamable',
              keyHash: req.keyHash,
              transport,
              server,
              lastSeen: Date.now(),
              openStreams: 0,
              protocolVersion: negotiatedVersion(body),
            };
            registry.add(session);
            place.release();
          },
          // Awaited before DELETE is answered: a client that has its 200 finds the session's tabs closed.
          onsessionclosed: (id) => registry.close(id, 'client sent DELETE'),
        });
        transport.onclose = () => {
          if (session) void registry.close(session.id, 'client ended the session');
        };
        const server = opts.createServer(() => transport.sessionId, req.keyHash);
        try {
          await server.connect(transport);
          handOver(reply);
          await transport.handleRequest(req.raw, reply.raw, body);
        } finally {
          place.release();
        }
        return reply;
      }
      const session = sessionFor(req, reply);
      if (!session) return reply;
      if (Array.isArray(body)) {
        // Judged by the version the session agreed, whatever a request's header claims: a claim may not reopen batches.
        const agreed = session.protocolVersion ?? BATCH_LAST_VERSION;
        if (body.length === 0) return sendError(reply, 400, ErrorCodes.InvalidRequest, 'Invalid Request: a JSON-RPC batch must not be empty.');
        if (agreed > BATCH_LAST_VERSION) {
          return sendError(
            reply,
            400,
            ErrorCodes.InvalidRequest,
            `JSON-RPC batches are not allowed in protocol version ${agreed}: send one message per request.`,
          );
        }
      }
      // A session answering a long call (a 60 s browser_wait_for) is busy, not idle.
      holdOpen(session, reply);
      handOver(reply);
      await (session.transport as NodeStreamableHTTPServerTransport).handleRequest(req.raw, reply.raw, body);
      return reply;
    });

    app.get('/mcp', async (req, reply) => {
      // Without a session there is no stream to open (2026-07-28 is POST only): 405, which clients read as "none".
      if (req.headers['mcp-session-id'] === undefined) {
        return onlyWithSession(reply, 'GET /mcp opens the stream of a 2025 session (send its Mcp-Session-Id); without a session, send requests by POST.');
      }
      const session = sessionFor(req, reply);
      if (!session) return reply;
      holdOpen(session, reply);
      handOver(reply);
      await (session.transport as NodeStreamableHTTPServerTransport).handleRequest(req.raw, reply.raw);
      return reply;
    });

    // Only POST, GET and DELETE are part of the transport.
    app.route({
      method: ['PUT', 'PATCH'],
      url: '/mcp',
      handler: async (_req, reply) => {
        reply.header('Allow', 'GET, POST, DELETE');
        return sendError(reply, 405, ErrorCodes.InvalidRequest, 'Method not allowed: /mcp takes POST, GET and DELETE.');
      },
    });

    app.delete('/mcp', async (req, reply) => {
      if (req.headers['mcp-session-id'] === undefined) {
        return onlyWithSession(reply, 'DELETE /mcp ends a 2025 session (send its Mcp-Session-Id); 2026-07-28 requests have no session to end.');
      }
      const session = sessionFor(req, reply);
      if (!session) return reply;
      handOver(reply);
      await (session.transport as NodeStreamableHTTPServerTransport).handleRequest(req.raw, reply.raw);
      return reply;
    });
  },
  { name: 'browsermcp-streamable-http', fastify: '5.x' },
);
