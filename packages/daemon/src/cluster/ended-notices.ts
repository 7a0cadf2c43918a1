import { parseSessionEnded } from '@browsermcp/protocol';
import type { Msg } from '@nats-io/transport-node';
import type { SessionCloseReason } from '../router/listeners.js';
import type { KvRouterStore } from './kv-store.js';
import { readMessage } from './messages.js';
import { INSTANCE_ID_PATTERN } from './names.js';

export interface EndedNoticeOptions {
  readonly store: KvRouterStore;
  readonly instanceId: string;
  readonly logger: { warn(details: Record<string, unknown>, message: string): void };
  /** Ends the session here: its queued commands fail, its listeners are told (PeerApi.sessionEnded). */
  readonly ended: (sessionId: string, reason: SessionCloseReason) => void;
}

/**
 * Another instance says a session ended. One the store still holds has not, whoever says so: the sayer's version is
 * read from the bucket (the watch may not have brought its tombstone yet), and a read that fails believes nothing.
 * One that has ended: this instance's own version of it, outranked, goes, and the session ends here too.
 */
export async function onSessionEnded(o: EndedNoticeOptions, msg: Msg): Promise<void> {
  const notice = readMessage(msg, parseSessionEnded);
  if (!notice || notice.instanceId === o.instanceId || !INSTANCE_ID_PATTERN.test(notice.instanceId)) return;
  const { sessionId, instanceId, reason } = notice;
  if ((await o.store.getSessionUnchecked(sessionId, instanceId).catch(() => 'unread')) !== undefined) {
    o.logger.warn({ sessionId, instanceId }, 'ignored a session-ended notice for a session that is still open');
    return;
  }
  await o.store.tidySessions(sessionId).catch(() => undefined);
  o.ended(sessionId, reason);
}
