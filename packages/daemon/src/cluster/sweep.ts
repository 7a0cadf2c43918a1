import type { SessionRouter } from '../router/index.js';
import type { ClusterOptions } from './join.js';
import type { KvRouterStore } from './kv-store.js';
import { overdue } from './overdue.js';

/** How often the sweep reads every session again, besides the watch that follows them. */
const SESSIONS_REFRESH_MS = 60_000;

/** What one sweep reads of the cluster: its store, this instance's router, and the directory's view. */
export interface SweepInputs {
  readonly store: KvRouterStore;
  readonly router: SessionRouter;
  /** The instances alive now. */
  readonly liveInstances: ReadonlySet<string>;
  /** Whether any instance has an entry for the browser (held, away, or in dispute). */
  readonly claimed: (executorId: string) => boolean;
  /** Whether a live client drives the session on this instance. */
  readonly driving: (sessionId: string) => boolean;
  readonly logger: ClusterOptions['logger'];
}

/**
 * The heartbeat's sweep of the sessions no one serves any more: it closes, once a whole grace period has passed, the
 * sessions of browsers no instance holds and the sessions whose serving instance died without another taking them up,
 * and lets the kept browser states of dead instances go.
 */
export class ClusterSweep {
  /** Executors some session names that no instance holds, since when: closed once the grace period passes. */
  readonly #missingSince = new Map<string, number>();
  /** Sessions whose serving instance is gone, since when: closed once the grace period passes. */
  readonly #unservedSince = new Map<string, number>();
  /** When the sessions were last read whole. */
  #refreshedAt = Date.now();

  async run({ store, router, liveInstances: live, claimed, driving, logger }: SweepInputs): Promise<void> {
    const now = Date.now();
    const grace = router.gracePeriodMs;
    // The time of the versions this instance serves; then every session, believed or run out (its server died): one
    // whose server is gone is cleaned up.
    const { lapsed } = await store.renewSessions(driving);
    for (const sessionId of lapsed) {
      logger.warn({ sessionId }, 'closing a session whose record ran out while this daemon could not renew it (stalled, or away from NATS)');
      await router.closeSession(sessionId).catch(() => undefined);
    }
    // A full read now and then, besides the watch (which misses nothing while NATS stays), costs one read per key.
    if (now - this.#refreshedAt >= SESSIONS_REFRESH_MS) {
      // With it, this instance's parts of kept states that ended (a read of each state); the session of one another
      // kept at the same moment outranks would be open for nothing.
      const { superseded } = await store.tidyStates();
      for (const sessionId of superseded) {
        logger.warn({ sessionId }, 'closing the session of a kept browser state another daemon kept for the same owner at the same moment');
        await router.closeSession(sessionId).catch(() => undefined);
      }
      await store.refreshSessions();
      this.#refreshedAt = now;
    }
    const sessions = await store.listAllSessions();
    // This instance's versions that no longer count (sessions taken up or ended elsewhere, run out).
    await store.tidySessions();
    // Tab claims of sessions that ended elsewhere while their tabs stayed (the browser away, a close not heard).
    await store.pruneTabs();
    for (const [executorId] of overdue(
      this.#missingSince,
      sessions.map((s) => s.executorId),
      claimed,
      now,
      grace,
    )) {
      logger.info({ executorId }, 'closing the sessions of a browser no instance holds any more');
      await router.peer.expireExecutor(executorId);
    }
    // A kept browser state outlives its clients by its own time, which states.expire below keeps.
    const kept = new Set((await store.listStates()).map((state) => state.sessionId));
    const servers = new Map(sessions.filter((s) => !kept.has(s.sessionId)).map((s) => [s.sessionId, s.servedBy]));
    const served = (sessionId: string) => {
      const servedBy = servers.get(sessionId);
      return servedBy === undefined || live.has(servedBy);
    };
    for (const [sessionId] of overdue(this.#unservedSince, [...servers.keys()], served, now, grace)) {
      logger.info({ sessionId, instanceId: servers.get(sessionId) }, 'closing a session whose instance died and that no client took up');
      await router.closeSession(sessionId).catch(() => undefined);
    }
    // Kept browser states: uses on instances that died never end by themselves; and the states whose time ran out
    // while the instance that would have closed them was gone.
    await router.states.expire((holder) => holder.instance !== undefined && !live.has(holder.instance));
  }
}
