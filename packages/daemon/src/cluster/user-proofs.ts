import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalAsRead, claimsOf, type SignedRecord } from './record-signatures.js';

/** What the key of the user proofs is derived for (TokenVerifier.derivedKey). */
export const USER_PROOF_PURPOSE = 'browsermcp cluster user proof v1';

/** The facts a browser's user proof binds: which browser, whose, held by which instance. */
export interface BrowserFacts {
  readonly id: string;
  readonly userId: string | null;
  readonly instanceId: string;
}

/**
 * A daemon's word that it checked a user's access token, which only a daemon holding the token secret can give. The
 * cluster's store and directory are every daemon's to write, and a record or entry there names its user: without
 * this, a daemon's NATS credentials alone could write a session for any user on that user's browser, take up one
 * whose client has gone, or list a browser of their own making among a user's. The instance serving a session proves
 * its record (at its open and at a take-up, after the user's token: all of it, its user or none, browser, agent,
 * settings and sealed secrets, so that no part of it can be changed or moved under another daemon's signature), the
 * instance holding an extension proves the browser's user (after the extension's token); the others believe neither
 * without it. An HMAC, not a signature: the daemons share the HS256 secret already, and each of them can make any
 * user's token with it anyway.
 */
export class UserProofs {
  readonly #key: Uint8Array;

  constructor(key: Uint8Array) {
    this.#key = key;
  }

  /** The proof of a session record: of everything its signature covers (record-signatures.ts claimsOf). */
  session(record: SignedRecord): string {
    return this.#mac(['session', claimsOf(record)]);
  }

  /**
   * The proof of one instance's part of a kept browser state (kv-states.ts), all of it: which owner's state it is and
   * which session holds it (what a take-up drives), for how long, listed under which principal and name, when it was
   * kept, which of its holders that instance has and since when it has none, and that instance (a part copied under
   * another instance's key does not prove). Each instance proves its part anew at each write.
   */
  statePart(instance: string, part: object): string {
    return this.#mac(['state-part', instance, canonicalAsRead(part)]);
  }

  /** Whether `proof` is this key's proof of the instance's part. */
  provesStatePart(instance: string, part: object, proof: unknown): boolean {
    return same(this.statePart(instance, part), proof);
  }

  browser(facts: BrowserFacts): string {
    return this.#mac(['browser', facts.id, facts.userId, facts.instanceId]);
  }

  /** Whether the record carries this key's proof of it. */
  provesSession(record: SignedRecord): boolean {
    return same(this.session(record), record.userProof);
  }

  /** Whether `proof` is this key's proof of the browser's facts. */
  provesBrowser(facts: BrowserFacts, proof: unknown): boolean {
    return same(this.browser(facts), proof);
  }

  #mac(fields: Array<string | null>): string {
    // JSON keeps the fields apart whatever they hold.
    return createHmac('sha256', this.#key).update(JSON.stringify(fields)).digest('base64url');
  }
}

function same(expected: string, proof: unknown): boolean {
  if (typeof proof !== 'string' || proof.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(proof), Buffer.from(expected));
}
