import { createHash, createHmac } from 'node:crypto';
import type { ExtensionInfo } from '@browsermcp/protocol';
import type { FastifyRequest } from 'fastify';
import { madeAgainWith, SessionNotFoundError, UnauthorizedError } from '../errors.js';
import type { SessionRecord } from '../router/index.js';
import type { TokenVerifier } from './auth.js';
import type { DaemonState } from './core.js';

/** The id the daemon's own launched browser has among the browsers a caller may use. */
export const LOCAL_BROWSER_ID = 'local';

/**
 * Who calls an HTTP endpoint: the user id in the `Authorization: Bearer <token>` on a daemon with a verifier, or
 * null on a daemon without auth. Tokens are only read from that header: a query string ends up in logs.
 */
export async function httpCaller(state: DaemonState, request: FastifyRequest): Promise<string | null> {
  const { verifier } = state.options;
  if (!verifier) return null;
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  if (!match) {
    throw new UnauthorizedError(
      'this daemon requires an access token: send "Authorization: Bearer <token>" (create one with `browsermcp-daemon token --user <id> --secret-file <file>`)',
    );
  }
  return (await verifier.verify(match[1]!)).userId;
}

/** What the key of the users' namespaces in router ids is derived for (TokenVerifier.derivedKey). */
export const ROUTER_IDS_PURPOSE = 'browsermcp router ids v1';

/**
 * The router's id for a session an HTTP caller names: on a daemon with auth, inside its user's own namespace, so
 * that another user's session id is never in the way (it opens as a new session, and reads as not found) and tells
 * nothing of that user's sessions. The namespace is a keyed hash of the user (under a key derived from the token
 * secret where there is one, the same on every daemon of a cluster): the id is in clear in the cluster's store, and
 * must not name whose session it is.
 */
export function routerSessionId(userId: string | null, sessionId: string, verifier?: TokenVerifier): string {
  if (userId === null) return sessionId;
  const key = verifier?.derivedKey?.(ROUTER_IDS_PURPOSE);
  const namespace = (key ? createHmac('sha256', key) : createHash('sha256').update(ROUTER_IDS_PURPOSE)).update(userId, 'utf8').digest('base64url');
  return `u.${namespace.slice(0, 22)}.${sessionId}`;
}

/** The error as the caller should read it: its session named by the id the caller gave, not the router's. */
export function inCallerTerms<T>(work: Promise<T>, routerId: string, callerId: string): Promise<T> {
  if (routerId === callerId) return work;
  return work.catch((error: unknown) => {
    throw madeAgainWith(error, routerId, callerId);
  });
}

/**
 * The browsers a user may open sessions on: the daemon's own (when it has one) and that user's extensions; in a
 * cluster, those of every instance, each with the instance that holds it.
 */
export function browsersFor(state: DaemonState, userId: string | null): ExtensionInfo[] {
  if (state.options.cluster) return state.options.cluster.browsersFor(userId);
  const out: ExtensionInfo[] = [];
  if (state.options.localExecutor) out.push({ id: LOCAL_BROWSER_ID, name: 'Local Chromium', connected: true });
  for (const record of state.extensions.records.values()) {
    if (record.userId === userId) out.push({ id: record.id, name: record.name, connected: record.connection !== null });
  }
  return out;
}

/**
 * The session, if this caller may reach it. Another user's session reads exactly like one that does not exist:
 * its existence is not this caller's business.
 */
export async function sessionOf(state: DaemonState, sessionId: string, userId: string | null): Promise<SessionRecord> {
  const session = await state.router.getSession(sessionId);
  if (session === undefined || (session.userId ?? null) !== userId) throw new SessionNotFoundError(sessionId);
  return session;
}

/**
 * The browser a caller named, if it may use it. "local" names this daemon's own browser, also in a cluster where
 * its id is unique ("local-<instance>").
 */
export function findBrowser(state: DaemonState, userId: string | null, id: string): ExtensionInfo | undefined {
  const wanted = id === LOCAL_BROWSER_ID && state.options.localExecutor ? state.options.localExecutor.id : id;
  return browsersFor(state, userId).find((browser) => browser.id === wanted);
}
