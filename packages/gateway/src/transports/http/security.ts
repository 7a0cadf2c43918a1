import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import { guardRefusal } from '@browsermcp/daemon';
import { ErrorCodes } from '@browsermcp/protocol';
import { HttpRefusal } from '../../errors.js';

export interface SecurityOptions {
  /** Bearer keys clients may send (one per client or team); empty = no auth (loopback only, checked at startup). */
  apiKeys: string[];
  /** Host names accepted (lower case, any port; "*" for any), as the daemon's guard takes them. */
  allowedHosts: Set<string>;
  /** Browser origins allowed to call (CORS), lower case; any other Origin is refused. */
  corsOrigins: Set<string>;
  /** Requests per minute per key; undefined = no limit. */
  rateLimit: number | undefined;
  /** Failed authentications per minute per client address. */
  authFailuresPerMinute: number;
  /**
   * Failed authentications per minute from all addresses together (default: ten addresses' worth): a guesser with many
   * addresses (a whole loopback range, a botnet) is slowed as much as one with a single address.
   */
  authFailuresTotalPerMinute?: number | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Hash of the caller's API key (undefined without auth): sessions are bound to it. */
    keyHash: string | undefined;
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** A JSON-RPC shaped error body, so MCP clients can read every refusal the same way. */
export function sendError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).type('application/json').send({ jsonrpc: '2.0', id: null, error: { code, message } });
}

/**
 * Every HTTP request passes here first: Host (DNS rebinding), Origin (no web page unless allowed), then the
 * bearer key, compared in constant time. Failed keys are rate limited per address.
 */
export const security = fp(
  async function security(app: FastifyInstance, opts: SecurityOptions) {
    const expected = opts.apiKeys.map(sha256);
    type Auth = { kind: 'open' } | { kind: 'ok'; hash: string } | { kind: 'missing' } | { kind: 'wrong' };
    // Hashing both sides gives equal lengths for timingSafeEqual and never keeps the key itself around.
    const authState = (req: FastifyRequest): Auth => {
      if (!expected.length) return { kind: 'open' };
      const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      if (!m) return { kind: 'missing' };
      const given = sha256(m[1]!);
      // Compared with every key, without stopping at a match: the time says nothing about which key it was.
      let match = false;
      for (const key of expected) match = timingSafeEqual(given, key) || match;
      return match ? { kind: 'ok', hash: given.toString('hex') } : { kind: 'wrong' };
    };
    const trusted = (a: Auth) => a.kind === 'ok' || a.kind === 'open';
    // /.well-known/* answers 404 without a key: a 401 there makes MCP clients (the Inspector) start an OAuth flow
    // this server does not offer, instead of asking for the bearer key.
    const pathOf = (req: FastifyRequest) => req.url.split('?')[0]!;
    const isHealth = (req: FastifyRequest) => req.method === 'GET' && pathOf(req) === '/health';
    const isPublic = (req: FastifyRequest) => req.method === 'OPTIONS' || isHealth(req) || (req.method === 'GET' && pathOf(req).startsWith('/.well-known/'));

    app.decorateRequest('keyHash', undefined);

    // One window for every address's failures together; each address also has its own budget (the limiter below).
    const totalFailures = { windowStart: 0, count: 0, max: opts.authFailuresTotalPerMinute ?? opts.authFailuresPerMinute * 10 };
    const failureWindowFull = (): number | undefined => {
      const now = Date.now();
      if (now - totalFailures.windowStart >= 60_000) Object.assign(totalFailures, { windowStart: now, count: 0 });
      return totalFailures.count >= totalFailures.max ? Math.ceil((totalFailures.windowStart + 60_000 - now) / 1000) : undefined;
    };

    await app.register(rateLimit, {
      global: true,
      timeWindow: 60_000,
      // Valid keys share the --rate-limit budget per key; everything else (missing or wrong keys) is counted per
      // address with a small budget, so guessing keys is slow.
      keyGenerator: (req) => {
        const auth = authState(req);
        return auth.kind === 'ok' ? `key:${auth.hash}` : auth.kind === 'open' ? 'open' : `addr:${req.ip}`;
      },
      max: (req) => (trusted(authState(req)) ? (opts.rateLimit ?? Number.MAX_SAFE_INTEGER) : opts.authFailuresPerMinute),
      allowList: (req) => isPublic(req) || (opts.rateLimit === undefined && trusted(authState(req))),
      // The plugin throws what this returns: the app's error handler answers it in JSON-RPC form (app.ts).
      errorResponseBuilder: (_req, context) =>
        new HttpRefusal(429, ErrorCodes.RateLimited, `Too many requests: try again in ${Math.ceil(context.ttl / 1000)} s.`),
    });

    // The one Host/Origin guard, shared with the daemon.
    const rules = { allowedHosts: opts.allowedHosts, corsOrigins: opts.corsOrigins };
    app.addHook('onRequest', async (req, reply) => {
      // /health says nothing a page could use, and a load balancer or a person asks it by whatever name they use.
      if (isHealth(req)) return;
      const refusal = guardRefusal(req.headers, rules);
      if (refusal) return sendError(reply, 403, ErrorCodes.Forbidden, refusal);
    });

    // The key is checked after the rate limiter (a route-level onRequest hook) has counted the request, and before
    // the body is read.
    app.addHook('preParsing', async (req, reply) => {
      if (isPublic(req)) return;
      const auth = authState(req);
      if (auth.kind === 'missing' || auth.kind === 'wrong') {
        const wait = failureWindowFull();
        if (wait !== undefined) {
          reply.header('Retry-After', String(wait));
          return sendError(reply, 429, ErrorCodes.RateLimited, `Too many failed keys from all clients: try again in ${wait} s.`);
        }
        totalFailures.count++;
      }
      if (auth.kind === 'missing') {
        reply.header('WWW-Authenticate', 'Bearer realm="browsermcp"');
        return sendError(
          reply,
          401,
          ErrorCodes.Unauthorized,
          'Missing API key: send "Authorization: Bearer <key>" (the key is printed when the gateway starts).',
        );
      }
      if (auth.kind === 'wrong') {
        return sendError(reply, 403, ErrorCodes.Forbidden, 'Wrong API key. Use the key the gateway printed at startup or set with --api-key.');
      }
      req.keyHash = auth.kind === 'ok' ? auth.hash : undefined;
    });
  },
  { name: 'browsermcp-security', fastify: '5.x' },
);
