import { SessionExistsError, SessionInUseError, SessionNotFoundError, TooManySessionsError } from '../errors';
import { checkId } from './checks';
import type { ExecutorRegistry } from './executors';
import { sessionRecordFor } from './requests';
import type { StoppedSessions } from './stopped-sessions';
import type { RouterStore, SessionRecord } from './store';
import type { OpenSessionOptions, RouterOptions } from './types';

/** Who may open a session, and who may take up one whose client connection dropped (the router's openSession and resumeSession). */
export interface Admission {
  store: RouterStore;
  executors: ExecutorRegistry;
  stopped: StoppedSessions;
  remote: RouterOptions['remote'];
  maxSessionsPerUser: number;
  defaultExecutorId: string | undefined;
  /** Ends a session whose browser refused to open it. */
  end(sessionId: string): Promise<unknown>;
}

/** Opens a session on a connected executor, within its user's cap; see SessionRouter.openSession. */
export async function admitSession(a: Admission, sessionId: string, options: OpenSessionOptions): Promise<SessionRecord> {
  // In a cluster every session names the instance serving its client: the others believe its record only signed so.
  const servedBy = options.servedBy ?? a.remote?.instanceId;
  const session = sessionRecordFor(sessionId, servedBy !== undefined ? { ...options, servedBy } : options, a.defaultExecutorId);
  const { executorId, userId } = session;
  const executor = a.executors.live(executorId);
  // One user cannot take the daemon's sessions (and browser contexts) for everyone else.
  if (userId !== undefined) {
    const open = (await a.store.listSessions()).filter((s) => s.userId === userId).length;
    if (open >= a.maxSessionsPerUser) throw new TooManySessionsError(userId, a.maxSessionsPerUser);
  }
  if (!(await a.store.createSession(session))) throw new SessionExistsError(sessionId);
  if (executor.openSession !== undefined) {
    try {
      await executor.openSession(session);
    } catch (error) {
      await a.end(sessionId);
      throw error;
    }
  }
  return session;
}

/** What a caller taking up a session says of itself; see SessionRouter.resumeSession. */
export interface TakeUp {
  userId?: string | undefined;
  servedBy?: string | undefined;
  shared?: boolean | undefined;
}

/** How often a take-up that another instance's take-up overtook asks again (whether a client drives it there now). */
const TAKE_UP_ATTEMPTS = 3;

/** Takes up an open session for `options.servedBy`: its own user's only, and not one a live client elsewhere drives. */
export async function takeUpSession(a: Admission, sessionId: string, options: TakeUp): Promise<SessionRecord> {
  checkId(sessionId, 'sessionId');
  for (let attempt = 1; ; attempt++) {
    const session = await a.store.getSession(sessionId);
    if (session === undefined && a.stopped.has(sessionId)) throw a.stopped.error(sessionId);
    if (session === undefined || session.userId !== options.userId) throw new SessionNotFoundError(sessionId);
    const from = session.servedBy;
    const elsewhere = options.servedBy !== undefined && from !== undefined && from !== options.servedBy;
    if (elsewhere && options.shared !== true && (await a.remote?.drives(from, sessionId))) throw new SessionInUseError(sessionId, from);
    if (options.servedBy === undefined) return session;
    // As it was checked above (the question to the other instance took a while): not another session written since,
    // nor one another instance took up meanwhile, whose client is asked about in the next round.
    if (await a.store.setServedBy(sessionId, options.servedBy, session)) return { ...session, servedBy: options.servedBy };
    // Overtaken again and again: others take it up as fast (calls of its client on several daemons at once).
    if (attempt >= TAKE_UP_ATTEMPTS) throw new SessionInUseError(sessionId, session.servedBy ?? 'another instance');
  }
}
