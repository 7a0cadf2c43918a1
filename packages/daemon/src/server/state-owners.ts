import { createHmac } from 'node:crypto';

/**
 * Who owns a kept browser state, as the router's store keeps it: an HMAC, under a secret only the daemons hold (the
 * cluster's, or this process's), of the authenticated user and the owner its client named (the gateway names a key
 * by a label derived from it). The store, shared in NATS by a cluster, so shows neither a user nor anything derived
 * from a key, and a stored owner read from it claims nothing: the daemon derives it again from who is asking.
 */
export function keptStateOwner(secret: Uint8Array, userId: string | null, named: string): string {
  return createHmac('sha256', secret)
    .update(JSON.stringify([userId, named]))
    .digest('base64url');
}
