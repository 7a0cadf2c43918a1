import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { NatsCredentials, NatsTls } from './cluster/nats-connection.js';
import { localBrowserName } from './cluster/names.js';
import { ClusterNode } from './cluster/node.js';
import { LocalExecutor, type LocalExecutorOptions } from './local/executor.js';
import { SessionRouter } from './router/index.js';
import { buildDaemonApp } from './server/app.js';
import type { DaemonAppOptions } from './server/options.js';

export interface ClusterSettings {
  /** NATS server URL(s), comma-separated: nats://127.0.0.1:4222 (a user and password may sit in it; never printed). */
  nats: string;
  /** How this daemon proves itself to NATS (one kind); never printed. */
  credentials?: NatsCredentials | undefined;
  tls?: NatsTls | undefined;
  /** Joins a NATS that lets anyone connect; refused by default (whoever reaches it could drive every session). */
  allowAnonymous?: boolean | undefined;
  /** This daemon's id in the cluster; random (and printed) when not given. */
  instanceId?: string | undefined;
  /** Buckets and subjects start with this; default "browsermcp". */
  prefix?: string | undefined;
  /** How often this daemon's directory entries are written again; default 2 000 ms. */
  heartbeatMs?: number | undefined;
}

export interface StartDaemonOptions extends Omit<DaemonAppOptions, 'router' | 'localExecutor' | 'cluster'> {
  host: string;
  port: number;
  commandTimeoutMs?: number | undefined;
  /** How long a disconnected browser's sessions (and its listing) wait for it to come back. Default 5 minutes. */
  gracePeriodMs?: number | undefined;
  /** Most sessions one user may have open at once (DEFAULT_MAX_SESSIONS_PER_USER). */
  maxSessionsPerUser?: number | undefined;
  /** Most browser states kept at once (DEFAULT_MAX_BROWSER_STATES). */
  maxBrowserStates?: number | undefined;
  /** The local executor's options, or null to run without one (extensions only). */
  local: LocalExecutorOptions | null;
  logger?: FastifyServerOptions['logger'];
  /** Join a cluster of daemons on NATS with JetStream; without it the daemon keeps its state in-process. */
  cluster?: ClusterSettings | undefined;
}

export interface RunningDaemon {
  app: FastifyInstance;
  router: SessionRouter;
  localExecutor: LocalExecutor | undefined;
  /** This daemon's membership of a cluster, when started with one. */
  cluster: ClusterNode | undefined;
  /** The address it listens on, e.g. http://127.0.0.1:8765. */
  address: string;
  /** Closes the endpoints, the browser it launched and the router. Safe to call twice. */
  close(): Promise<void>;
}

/** A router, the local executor (unless disabled) and the HTTP/WebSocket app, listening: what the CLI runs. */
export async function startDaemon(options: StartDaemonOptions): Promise<RunningDaemon> {
  const { host, port, commandTimeoutMs, gracePeriodMs, maxSessionsPerUser, maxBrowserStates, local, logger, cluster: clusterSettings, ...appOptions } = options;
  // The router warns through the app's logger once there is one (it is made first: the app needs the router).
  let app: FastifyInstance | undefined;
  const log = {
    warn: (details: Record<string, unknown>, message: string) => app?.log.warn(details, message),
    info: (details: Record<string, unknown>, message: string) => app?.log.info(details, message),
  };
  const cluster = clusterSettings
    ? await ClusterNode.connect({
        url: clusterSettings.nats,
        instanceId: clusterSettings.instanceId,
        prefix: clusterSettings.prefix,
        heartbeatMs: clusterSettings.heartbeatMs,
        credentials: clusterSettings.credentials,
        tls: clusterSettings.tls,
        allowAnonymous: clusterSettings.allowAnonymous,
        derivedKey: appOptions.verifier?.derivedKey,
        version: appOptions.version ?? '0.0.0',
        logger: log,
      })
    : undefined;
  const localId = cluster ? cluster.localExecutorId() : 'local';
  const router = new SessionRouter({
    logger: log,
    ...(local ? { defaultExecutorId: localId } : {}),
    ...(commandTimeoutMs !== undefined ? { commandTimeoutMs } : {}),
    ...(gracePeriodMs !== undefined ? { gracePeriodMs } : {}),
    ...(maxSessionsPerUser !== undefined ? { maxSessionsPerUser } : {}),
    ...(maxBrowserStates !== undefined ? { maxBrowserStates } : {}),
    ...(cluster ? { store: cluster.store, remote: cluster } : {}),
  });
  const localExecutor = local ? new LocalExecutor(router, { ...local, id: localId }) : undefined;
  try {
    if (localExecutor) await router.executorConnected(localExecutor);
    app = await buildDaemonApp({ ...appOptions, router, localExecutor, cluster }, { logger: logger ?? false });
    if (cluster && appOptions.verifier && !appOptions.verifier.derivedKey) {
      app.log.warn(
        "with --auth-public-key-file the daemons of a cluster share no secret to prove users with: a session record or a browser entry names its user on its daemon's word, so one daemon's NATS credentials can write a session for any user, and records keep a session's user, settings and --secrets in clear (SECURITY.md); use --auth-secret-file to have users proven and records sealed",
      );
    }
    const { linked } = app.browsermcp;
    await cluster?.attach(
      router,
      app.browsermcp.extensions,
      localExecutor && { id: localExecutor.id, name: localBrowserName(cluster.instanceId) },
      (sessionId) => linked.has(sessionId),
    );
  } catch (error) {
    await app?.close();
    await cluster?.close();
    await localExecutor?.close();
    await router.close();
    throw error;
  }
  const running = app;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      // The cluster hears first, so other instances stop sending here before the sockets go.
      await cluster?.close();
      await running.close();
      await localExecutor?.close();
      await router.close();
    })());
  try {
    const address = await app.listen({ host, port });
    return { app, router, localExecutor, cluster, address, close };
  } catch (error) {
    await close();
    throw error;
  }
}
