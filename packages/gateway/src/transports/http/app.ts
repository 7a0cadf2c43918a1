import Fastify, { LogController, type FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import { createMcpHandler, type Tool as McpTool } from '@modelcontextprotocol/server';
import { DEFAULT_CONNECTION_LIMITS, limitConnectionsPerAddress, requestTimeouts, type ConnectionLimits } from '@browsermcp/daemon';
import { ErrorCodes, nestsDeeperThan, TOO_DEEP } from '@browsermcp/protocol';
import { HttpRefusal } from '../../errors.js';
import type { Backend } from '../../backend.js';
import type { SessionRecords } from '../../session-records.js';
import { createMcpServer, type ToolCallLog } from '../../mcp-server.js';
import { SessionRegistry, type SessionLimits, type SessionLog } from '../../sessions.js';
import { humanLogStream } from '../../log-format.js';
import { VERSION } from '../../version.js';
import { security, sendError, type SecurityOptions } from './security.js';
import { legacySse } from './sse.js';
import { NO_KEY, streamableHttp } from './streamable.js';
import { SessionCalls } from '../../calls/session-calls.js';
import { StatelessCalls } from '../../calls/stateless-calls.js';
import { BrowserStates } from '../../calls/browser-states.js';
import { describeNotice } from '../../notices.js';
import type { RootsPolicy } from '../../roots.js';
import { agentIdentity } from '../../agent-identity.js';

/** Fastify's codes for a body that is not JSON: answered as JSON-RPC parse errors (by code, not by their words). */
const JSON_BODY_ERRORS = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY']);

export interface HttpGatewayOptions extends SecurityOptions {
  backend: Backend;
  tools: McpTool[];
  /** Sessions without requests or open streams for this long are closed (0 = never). */
  sessionIdleMs: number;
  /** How many sessions may be open, in all and per key; more are refused before any work. */
  sessionLimits?: SessionLimits | undefined;
  /** Legacy SSE: ping interval and how long a session outlives its closed stream. */
  ssePingMs: number;
  gracePeriodMs: number;
  bodyLimit: number;
  /** What one client address may hold and how long a request may take to arrive. */
  connectionLimits?: ConnectionLimits | undefined;
  eventStoreSize: number;
  logLevel: string;
  /** Which of a client's MCP roots count for its input files, and whether the working directory does (roots.ts). */
  roots: RootsPolicy;
  /** How long a key's browser state outlives its last 2026-07-28 request (ms). */
  browserStateKeepMs: number;
  /** --max-browser-states-per-key. */
  maxBrowserStatesPerKey: number;
  /** --progress-interval, ms (default 10 s). */
  progressIntervalMs?: number | undefined;
  /** --save-session: where each session's calls are recorded (none: not recorded). */
  sessionRecords?: SessionRecords | undefined;
  /** --trust-proxy: which proxies' X-Forwarded-For to believe (true: any; a number: that many hops; addresses). */
  trustProxy?: boolean | number | string[] | undefined;
  /** Labels of API keys (--api-key-file's `label=key`), by the key's hash: named in the log with the key's fingerprint. */
  keyLabels?: ReadonlyMap<string, string> | undefined;
  /** pino destination; stderr by default so stdout stays clean. */
  logStream?: NodeJS.WritableStream | undefined;
}

export interface HttpGateway {
  app: FastifyInstance;
  registry: SessionRegistry;
  close(): Promise<void>;
}

export async function buildHttpGateway(opts: HttpGatewayOptions): Promise<HttpGateway> {
  const limits = opts.connectionLimits ?? DEFAULT_CONNECTION_LIMITS;
  const app = Fastify({
    bodyLimit: opts.bodyLimit,
    // Behind a reverse proxy: the client's address comes from X-Forwarded-For, for the rate limiter and the logs.
    ...(opts.trustProxy !== undefined ? { trustProxy: trustProxyOption(opts.trustProxy) } : {}),
    ...requestTimeouts(limits),
    // On shutdown every socket goes at once (open SSE streams included), so clients see the restart right away
    // instead of finding a half-closed keep-alive connection on their next request.
    forceCloseConnections: true,
    logger: { level: opts.logLevel, stream: opts.logStream ?? humanLogStream() },
    // One line per session and per tool call is logged by us; per-request lines would drown them.
    logController: new LogController({ disableRequestLogging: true }),
  });
  limitConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress, '--max-connections-per-address');
  const log: SessionLog = {
    // Which key opened it, as the person's popup names it (fingerprint and label), never the key.
    opened: (s) => {
      const label = s.keyHash === undefined ? undefined : opts.keyLabels?.get(s.keyHash);
      app.log.info(
        { session: s.id.slice(0, 8), transport: s.kind, agent: agentIdentity(s.keyHash ?? 'no-key'), ...(label ? { label } : {}) },
        'session opened',
      );
    },
    closed: (s, reason) => app.log.info({ session: s.id.slice(0, 8), reason }, 'session closed'),
  };
  const toolLog: ToolCallLog = (e) =>
    app.log.info({ session: e.sessionId.slice(0, 8), tool: e.tool, ms: Math.round(e.ms), ok: e.ok, ...(e.error ? { error: e.error } : {}) }, 'tool call');
  const registry = new SessionRegistry(opts.backend, log, opts.sessionIdleMs, opts.sessionLimits);
  opts.backend.onNotice?.((notice) => {
    const { fields, message } = describeNotice(notice);
    app.log.info(fields, message);
  });
  const roots = opts.roots;
  const serverOptions = {
    tools: opts.tools,
    version: VERSION,
    log: toolLog,
    ...(opts.progressIntervalMs ? { progressIntervalMs: opts.progressIntervalMs } : {}),
  };
  const statesOf = (keyOwner: string) =>
    new BrowserStates({ backend: opts.backend, keyOwner, browserStateKeepMs: opts.browserStateKeepMs, maxBrowserStatesPerKey: opts.maxBrowserStatesPerKey });
  const waitingFor = (sessionId: string) => opts.backend.waitingFor?.(sessionId);
  const createServer = (sessionId: () => string | undefined, keyHash: string | undefined) =>
    createMcpServer({
      ...serverOptions,
      record: opts.sessionRecords?.for(keyHash),
      pageTools: true,
      route: (server) =>
        new SessionCalls(server, {
          sessionId,
          backend: opts.backend,
          states: statesOf(keyHash ?? NO_KEY),
          roots,
          open: async (clientName, clientRoots, workspace) => {
            const id = sessionId();
            // Sessions of one key share a kept browser state (--keep-browser-state); without auth, all are one owner.
            if (id) await opts.backend.openSession(id, { clientName, roots: clientRoots, workspace, owner: keyHash ?? NO_KEY });
          },
        }),
    });
  // 2026-07-28: one server per request, its calls on the caller's browser state (its key's).
  const modern = createMcpHandler(
    ({ authInfo }) =>
      createMcpServer({
        ...serverOptions,
        record: opts.sessionRecords?.for(authInfo?.clientId),
        route: (server) => new StatelessCalls(server, { states: statesOf(authInfo?.clientId ?? NO_KEY), waitingFor, roots }),
      }),
    { legacy: 'reject', onerror: (error) => app.log.debug({ error: error.message }, 'stateless request refused') },
  );

  // Bad JSON and oversized bodies get JSON-RPC shaped errors like everything else.
  app.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, _req, reply) => {
    if (err instanceof HttpRefusal) return sendError(reply, err.statusCode, err.code, err.message);
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, 413, ErrorCodes.InvalidRequest, `Request body too large (limit ${opts.bodyLimit} bytes).`);
    }
    if (err.statusCode === 400 && (JSON_BODY_ERRORS.has(err.code ?? '') || err instanceof SyntaxError)) {
      return sendError(reply, 400, ErrorCodes.ParseError, `Parse error: the body is not valid JSON (${err.message}).`);
    }
    if (err.statusCode && err.statusCode < 500) return sendError(reply, err.statusCode, ErrorCodes.InvalidRequest, err.message);
    app.log.error(err, 'request failed');
    return sendError(reply, 500, ErrorCodes.InternalError, 'Internal error; see the gateway log.');
  });

  // A body nested past what any MCP message needs is refused before the SDK's recursive checks would overflow on it.
  app.addHook('preValidation', async (req, reply) => {
    if (req.method === 'POST' && nestsDeeperThan(req.body)) {
      return sendError(reply, 400, ErrorCodes.InvalidRequest, `Invalid request: ${TOO_DEEP}.`);
    }
  });

  await app.register(cors, {
    origin: [...opts.corsOrigins],
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    // mcp-method and mcp-name: the 2026-07-28 headers mirroring the body, which a browser client must be let send.
    allowedHeaders: ['content-type', 'authorization', 'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'last-event-id', 'accept'],
    exposedHeaders: ['Mcp-Session-Id', 'WWW-Authenticate', 'Retry-After'],
    maxAge: 600,
  });
  await app.register(security, {
    apiKeys: opts.apiKeys,
    allowedHosts: opts.allowedHosts,
    corsOrigins: opts.corsOrigins,
    rateLimit: opts.rateLimit,
    authFailuresPerMinute: opts.authFailuresPerMinute,
  });
  await app.register(streamableHttp, { registry, createServer, modern, eventStoreSize: opts.eventStoreSize });
  await app.register(legacySse, { registry, createServer, pingMs: opts.ssePingMs, gracePeriodMs: opts.gracePeriodMs });

  app.get('/health', async () => ({
    status: 'ok',
    version: VERSION,
    activeSessions: registry.size,
    browser: healthOfBrowser(opts.backend),
  }));
  app.get('/tools', async () => ({ tools: opts.tools }));

  return {
    app,
    registry,
    async close() {
      await registry.closeAll('gateway shutting down');
      await modern.close();
      await app.close();
    },
  };
}

function healthOfBrowser(backend: Backend): { mode: Backend['mode']; connected: boolean; problem?: string } {
  const problem = backend.browserProblem?.();
  return { mode: backend.mode, connected: backend.browserConnected(), ...(problem ? { problem } : {}) };
}

/** A hop count as Fastify's types take it: trust the `hops` proxies nearest to us. */
function trustProxyOption(value: boolean | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}
