import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ForbiddenError, isDaemonError, toWireError } from '../errors.js';
import type { DispatchRequest, SessionRouter } from '../router/index.js';
import type { ToolResult } from '@browsermcp/protocol';
import { guardRefusal } from './guard.js';
import { ExtensionRegistry } from './extensions.js';
import { KeptSessions } from './kept-sessions.js';
import { resolveOptions, type DaemonAppOptions, type ResolvedOptions } from './options.js';

/** What the daemon's plugins share, as `app.browsermcp`. */
export interface DaemonState {
  readonly options: ResolvedOptions;
  readonly router: SessionRouter;
  readonly extensions: ExtensionRegistry;
  /** Proxy sessions whose client connection dropped, waiting to be taken up again. */
  readonly kept: KeptSessions;
  /** Proxy sessions a live connection of this daemon drives now. */
  readonly linked: Set<string>;
  readonly startedAt: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    browsermcp: DaemonState;
  }
}

/** The wire shape of every HTTP error: `{error: {code, message, rpcCode}}`. */
export interface HttpErrorBody {
  error: { code: string; message: string; rpcCode: number };
}

export function errorBody(error: unknown): { status: number; body: HttpErrorBody } {
  const wire = toWireError(error);
  const status = isDaemonError(error) ? error.statusCode : 500;
  const code = isDaemonError(error) ? error.code : 'BMCP_ERR_INTERNAL';
  return { status, body: { error: { code, message: wire.message, rpcCode: wire.code } } };
}

/**
 * Runs one tool call and logs it as one line (session, name, duration, outcome): the daemon's command log.
 */
export async function runLogged(
  app: FastifyInstance,
  log: FastifyRequest['log'] | FastifyInstance['log'],
  sessionId: string,
  request: DispatchRequest,
): Promise<ToolResult> {
  const started = performance.now();
  try {
    const data = await app.browsermcp.router.callTool(sessionId, request);
    log.info({ sessionId, command: request.name, ms: Math.round(performance.now() - started) }, 'command');
    return data;
  } catch (error) {
    const code = isDaemonError(error) ? error.code : 'BMCP_ERR_INTERNAL';
    log.info({ sessionId, command: request.name, ms: Math.round(performance.now() - started), error: code }, 'command failed');
    throw error;
  }
}

/**
 * Shared state, the Host/Origin guard and the error format. The guard answers 403 to a Host the daemon is not
 * reached by (DNS rebinding), to /extension from anything but an allowed extension's Origin, and to other routes
 * from a browser Origin that is not allowed (a web page must not drive the browser). Callers without an Origin
 * (curl, scripts, Node clients) pass.
 */
async function daemonCorePlugin(app: FastifyInstance, options: DaemonAppOptions): Promise<void> {
  const resolved = resolveOptions(options);
  const state: DaemonState = {
    options: resolved,
    router: resolved.router,
    extensions: new ExtensionRegistry(),
    kept: new KeptSessions(),
    linked: new Set(),
    startedAt: Date.now(),
  };
  app.decorate('browsermcp', state);

  const rules = { allowedHosts: resolved.allowedHosts, corsOrigins: resolved.corsOrigins };
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    // /extension is for the browsermcp extension only, whatever else may call the daemon.
    if (request.url.split('?')[0] === '/extension') {
      const hostRefusal = guardRefusal({ host: request.headers.host }, rules);
      if (hostRefusal) return refuse(reply, hostRefusal);
      if (origin === undefined || !resolved.extensionOrigins.has(origin)) {
        return refuse(reply, `Origin ${origin ?? '(none)'} may not open /extension; only the browsermcp extension may (add its id with --extension-id)`);
      }
      return undefined;
    }
    const refusal = guardRefusal(request.headers, rules);
    return refusal ? refuse(reply, refusal) : undefined;
  });

  app.setErrorHandler((error, request, reply) => {
    // Fastify's own errors (a body that is not JSON, one too large) carry a 4xx statusCode and a clear message.
    const fastifyStatus = (error as { statusCode?: unknown }).statusCode;
    if (!isDaemonError(error) && typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
      const code = (error as { code?: unknown }).code;
      return reply.status(fastifyStatus).send({
        error: { code: typeof code === 'string' ? code : 'BMCP_ERR_BAD_REQUEST', message: (error as Error).message, rpcCode: -32600 },
      } satisfies HttpErrorBody);
    }
    const { status, body } = errorBody(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.status(status).send(body);
  });

  app.addHook('onClose', async () => {
    state.extensions.clear();
    state.kept.clear();
  });
}

function refuse(reply: FastifyReply, message: string): FastifyReply {
  return reply.status(403).send(errorBody(new ForbiddenError(message)).body);
}

export const daemonCore = fp(daemonCorePlugin, { name: 'browsermcp-core', fastify: '5.x' });
export default daemonCore;
