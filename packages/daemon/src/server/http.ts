import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { BadRequestError, ExtensionNotFoundError, SessionNotFoundError } from '../errors.js';
import { findBrowser, httpCaller, inCallerTerms, routerSessionId, sessionOf } from './caller.js';
import { runLogged } from './core.js';

export interface HealthBody {
  status: 'ok';
  version: string;
  /** Open sessions. */
  sessions: number;
  /** Browsers that can run commands now: connected extensions, plus the local executor when enabled. */
  browsers: number;
  /** Seconds since the daemon started. */
  uptime: number;
  /** In a cluster: this daemon's instance id, and the instances and browsers the cluster has now. */
  cluster?: { instanceId: string; instances: number; browsers: number };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new BadRequestError(`"${key}" must be a non-empty string`);
  return value;
}

/**
 * GET /health (open to all), and unless the daemon serves extensions only: POST /sessions, DELETE /sessions/:id and
 * POST /commands, which on a daemon with auth need a bearer token and reach only that user's sessions and browsers.
 */
async function httpApiPlugin(app: FastifyInstance): Promise<void> {
  const { router, options, extensions } = app.browsermcp;

  app.get('/health', async (): Promise<HealthBody> => {
    const stats = await router.stats();
    return {
      status: 'ok',
      version: options.version,
      sessions: stats.sessions,
      browsers: extensions.connectedCount + (options.localExecutor ? 1 : 0),
      uptime: Math.round((Date.now() - app.browsermcp.startedAt) / 1000),
      ...(options.cluster ? { cluster: options.cluster.summary() } : {}),
    };
  });

  if (!options.commandEndpoints) return;

  app.post('/sessions', async (request, reply) => {
    const userId = await httpCaller(app.browsermcp, request);
    const body = request.body ?? {};
    if (!isObject(body)) throw new BadRequestError('the body must be a JSON object {sessionId?, clientName?, executorId?}');
    const sessionId = optionalString(body, 'sessionId') ?? randomUUID();
    const clientName = optionalString(body, 'clientName');
    const named = optionalString(body, 'executorId');
    const found = named === undefined ? undefined : findBrowser(app.browsermcp, userId, named);
    // Another user's browser reads exactly like an unknown one (checked before anything opens).
    if (named !== undefined && options.verifier && found === undefined) throw new ExtensionNotFoundError(named);
    const executorId = found?.id ?? named;
    const routerId = routerSessionId(userId, sessionId, options.verifier);
    const opening = router.openSession(routerId, {
      ...(clientName !== undefined ? { clientName } : {}),
      ...(executorId !== undefined ? { executorId } : {}),
      ...(userId !== null ? { userId } : {}),
      // In a cluster its browser's instance runs it only for the instance serving it: this one, for now.
      ...(options.cluster ? { servedBy: options.cluster.instanceId } : {}),
    });
    const session = await inCallerTerms(opening, routerId, sessionId);
    request.log.info({ sessionId, executorId: session.executorId, clientName, userId }, 'session opened');
    return reply.status(201).send({ sessionId, executorId: session.executorId });
  });

  app.delete<{ Params: { sessionId: string } }>('/sessions/:sessionId', async (request, reply) => {
    const userId = await httpCaller(app.browsermcp, request);
    const { sessionId } = request.params;
    const routerId = routerSessionId(userId, sessionId, options.verifier);
    await inCallerTerms(sessionOf(app.browsermcp, routerId, userId), routerId, sessionId);
    if (!(await router.closeSession(routerId))) throw new SessionNotFoundError(sessionId);
    request.log.info({ sessionId }, 'session closed');
    return reply.status(204).send();
  });

  /**
   * A session's calls may come to any instance of a cluster (behind a load balancer): the one a call reaches takes the
   * session up first, as a proxy client's new connection does, so the browser's instance runs it for the server its
   * record names (cluster/peer-requests.ts) and for no other daemon.
   */
  const serveHere = async (routerId: string, userId: string | null, sessionId: string): Promise<void> => {
    const here = options.cluster?.instanceId;
    if (here === undefined) return;
    const session = await router.getSession(routerId);
    if (session === undefined || session.servedBy === here) return;
    await inCallerTerms(router.resumeSession(routerId, { ...(userId !== null ? { userId } : {}), servedBy: here }), routerId, sessionId);
  };

  app.post('/commands', async (request, reply) => {
    const userId = await httpCaller(app.browsermcp, request);
    const header = request.headers['x-instance-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (!sessionId) throw new BadRequestError('the X-Instance-ID header must name the session (create one with POST /sessions)');
    const body = request.body;
    if (!isObject(body)) throw new BadRequestError('the body must be a JSON object {name, payload?, tabId?}');
    const name = body.name;
    if (typeof name !== 'string' || name === '') throw new BadRequestError('"name" must be the tool name, e.g. "browser_navigate"');
    if (body.payload !== undefined && !isObject(body.payload)) throw new BadRequestError('"payload" must be an object of the tool\'s arguments');
    const tabId = optionalString(body, 'tabId');
    const timeoutMs = body.timeoutMs;
    if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0))) {
      throw new BadRequestError('"timeoutMs" must be a positive number');
    }
    // A client that hangs up before the answer cancels its command: the session's next one need not wait for it.
    const abandoned = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableEnded) abandoned.abort();
    };
    reply.raw.once('close', onClose);
    const routerId = routerSessionId(userId, sessionId, options.verifier);
    await serveHere(routerId, userId, sessionId);
    const running = runLogged(app, request.log, routerId, {
      name,
      payload: body.payload ?? {},
      signal: abandoned.signal,
      ...(tabId !== undefined ? { tabId } : {}),
      ...(typeof timeoutMs === 'number' ? { timeoutMs } : {}),
      ...(userId !== null ? { userId } : {}),
    }).finally(() => reply.raw.off('close', onClose));
    const result = await inCallerTerms(running, routerId, sessionId);
    const session = await router.getSession(routerId);
    return { result, tabId: session?.currentTabId ?? null };
  });
}

export const httpApi = fp(httpApiPlugin, { name: 'browsermcp-http', fastify: '5.x', dependencies: ['browsermcp-core'] });
export default httpApi;
