import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { LocalExecutor, type LocalExecutorOptions } from './local/executor.js';
import { SessionRouter } from './router/index.js';
import { buildDaemonApp } from './server/app.js';
import type { DaemonAppOptions } from './server/options.js';

export interface StartDaemonOptions extends Omit<DaemonAppOptions, 'router' | 'localExecutor'> {
  host: string;
  port: number;
  commandTimeoutMs?: number | undefined;
  /** How long a disconnected browser's sessions (and its listing) wait for it to come back. Default 5 minutes. */
  graceMs?: number | undefined;
  /** The local executor's options, or null to run without one (extensions only). */
  local: LocalExecutorOptions | null;
  logger?: FastifyServerOptions['logger'];
}

export interface RunningDaemon {
  app: FastifyInstance;
  router: SessionRouter;
  localExecutor: LocalExecutor | undefined;
  /** The address it listens on, e.g. http://127.0.0.1:8765. */
  address: string;
  /** Closes the endpoints, the browser it launched and the router. Safe to call twice. */
  close(): Promise<void>;
}

/** A router, the local executor (unless disabled) and the HTTP/WebSocket app, listening: what the CLI runs. */
export async function startDaemon(options: StartDaemonOptions): Promise<RunningDaemon> {
  const { host, port, commandTimeoutMs, graceMs, local, logger, ...appOptions } = options;
  // The router warns through the app's logger once there is one (it is made first: the app needs the router).
  let app: FastifyInstance | undefined;
  const router = new SessionRouter({
    logger: { warn: (details, message) => app?.log.warn(details, message) },
    ...(local ? { defaultExecutorId: 'local' } : {}),
    ...(commandTimeoutMs !== undefined ? { commandTimeoutMs } : {}),
    ...(graceMs !== undefined ? { graceMs } : {}),
  });
  const localExecutor = local ? new LocalExecutor(router, local) : undefined;
  if (localExecutor) await router.executorConnected(localExecutor);
  try {
    app = await buildDaemonApp({ ...appOptions, router, localExecutor }, { logger: logger ?? false });
  } catch (error) {
    await localExecutor?.close();
    await router.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await app.close();
      await localExecutor?.close();
      await router.close();
    })());
  try {
    const address = await app.listen({ host, port });
    return { app, router, localExecutor, address, close };
  } catch (error) {
    await close();
    throw error;
  }
}
