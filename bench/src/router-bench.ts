import { Worker } from 'node:worker_threads';
import { buildDaemonApp, EXTENSION_ID, SessionRouter } from '@browsermcp/daemon';
import { benchBrowserKey } from './bench-browser-key.js';
import { percentile } from './stats.js';

export interface RouterLevel {
  /** Sessions, each with one command in flight at a time (the router runs a session's commands in order). */
  sessions: number;
  commands: number;
  commandsPerSec: number;
  /** Envelopes through the router and the socket: a command and its response per command. */
  envelopesPerSec: number;
  p50: number;
  p99: number;
  errors: number;
}

/**
 * Commands through SessionRouter → /extension WebSocket → a no-op peer in a worker thread → back, closed loop:
 * each session sends its next command when the last one is answered.
 */
export async function routerBench(options: { seconds: number; levels: number[] }): Promise<RouterLevel[]> {
  const browserKey = benchBrowserKey();
  const { browserId } = browserKey;
  const router = new SessionRouter({ defaultExecutorId: browserId, commandTimeoutMs: 10_000 });
  const app = await buildDaemonApp({ router, heartbeatMs: 600_000 });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const worker = new Worker(new URL('../workers/noop-extension.mjs', import.meta.url), {
    workerData: { url: `${address.replace('http', 'ws')}/extension`, origin: `chrome-extension://${EXTENSION_ID}`, browserKey },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.once('message', (m) => (m === 'open' ? resolve() : reject(new Error(String(m)))));
      worker.once('error', reject);
    });
    for (let i = 0; i < 500 && (await router.stats()).executors === 0; i++) await new Promise((r) => setTimeout(r, 10));
    if ((await router.stats()).executors === 0) throw new Error('the no-op extension did not register with the router');

    const results: RouterLevel[] = [];
    let sessionSeq = 0;
    for (const sessions of options.levels) {
      const ids = Array.from({ length: sessions }, () => `s${++sessionSeq}`);
      for (const id of ids) await router.openSession(id, { executorId: browserId });
      // Warm up (JIT, socket buffers) for a fifth of the time, then measure.
      await closedLoop(router, ids, Math.max(200, (options.seconds * 1000) / 5), null);
      const latencies: number[] = [];
      const { commands, errors, ms } = await closedLoop(router, ids, options.seconds * 1000, latencies);
      results.push({
        sessions,
        commands,
        commandsPerSec: (commands / ms) * 1000,
        envelopesPerSec: ((commands * 2) / ms) * 1000,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        errors,
      });
      for (const id of ids) await router.closeSession(id);
    }
    return results;
  } finally {
    worker.postMessage('close');
    await app.close();
    await router.close();
    await worker.terminate();
  }
}

/** Each session sends its next no-op command when the last is answered, for `durationMs`; latencies if asked. */
export async function closedLoop(router: SessionRouter, ids: string[], durationMs: number, latencies: number[] | null) {
  let commands = 0;
  let errors = 0;
  const t0 = performance.now();
  const end = t0 + durationMs;
  await Promise.all(
    ids.map(async (id) => {
      while (performance.now() < end) {
        const start = performance.now();
        try {
          await router.dispatch(id, { name: 'browser_noop', payload: {} });
          commands++;
        } catch {
          errors++;
        }
        latencies?.push(performance.now() - start);
      }
    }),
  );
  return { commands, errors, ms: performance.now() - t0 };
}
