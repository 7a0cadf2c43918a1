import { HOLD_PROOF_CONNECTED_MS, HOLD_PROOF_RENEW_MS, parseHoldProof, type HoldProof, type ProveHoldPayload } from '@browsermcp/protocol';
import { isHoldProof } from '../cluster/hold-proofs.js';

/**
 * One extension connection's hold proofs, in a cluster (the protocol's browser-key.ts): asks the browser to sign that
 * this instance holds it, accepts only an answer to what it asked signed by the hello's key, keeps the latest, and
 * asks again every `renewMs`.
 */
export class HoldProver {
  /** The instants asked and not yet answered or superseded (the last few). */
  readonly #asked: number[] = [];
  #latest: HoldProof | undefined;
  #renewal: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly browserId: string,
    private readonly key: string,
    private readonly instance: string,
    /** The user whose token the extension authenticated with (null without auth): the directory entry names it too. */
    private readonly user: string | null,
    private readonly send: (payload: ProveHoldPayload) => void,
    private readonly renewMs = HOLD_PROOF_RENEW_MS,
  ) {}

  /** The browser's latest proof, once it gave one. */
  get latest(): HoldProof | undefined {
    return this.#latest;
  }

  /** Asks for a proof of now. */
  ask(): void {
    const at = Date.now();
    this.#asked.push(at);
    if (this.#asked.length > 4) this.#asked.shift();
    this.send({ instance: this.instance, at, user: this.user });
  }

  /**
   * The proof an answer carries, when it is one asked for and the browser's key signed it; undefined for a signed
   * answer to an ask a later answer already settled; else why not.
   */
  accept(payload: unknown): HoldProof | string | undefined {
    const answer = parseHoldProof(payload);
    if (!answer.ok) return answer.message;
    const proof = { key: this.key, at: answer.value.at, sig: answer.value.sig };
    if (answer.value.instance !== this.instance) return 'not the statement asked';
    if (!isHoldProof(this.browserId, this.instance, this.user, proof)) return "not signed by the browser's key";
    if (!this.#asked.includes(proof.at)) return this.#latest !== undefined && proof.at <= this.#latest.at ? undefined : 'not the statement asked';
    this.#asked.splice(0, this.#asked.indexOf(proof.at) + 1);
    if (this.#latest === undefined || proof.at > this.#latest.at) this.#latest = proof;
    return proof;
  }

  /**
   * Asks again every `renewMs` from now on. A browser that left three renewals unanswered is told to `drop` (why, for
   * the close): past two minutes without a proof the other instances would stop believing this one holds it while it
   * still looked connected here; dropped, it reconnects with a new proof.
   */
  renew(drop: (why: string) => void): void {
    this.#renewal = setInterval(() => {
      const silentMs = Date.now() - (this.#latest?.at ?? 0);
      if (silentMs > Math.min(3 * this.renewMs, HOLD_PROOF_CONNECTED_MS - this.renewMs)) {
        this.stop();
        return drop('the browser stopped answering prove_hold; reconnect');
      }
      this.ask();
    }, this.renewMs);
    this.#renewal.unref();
  }

  stop(): void {
    clearInterval(this.#renewal);
  }
}
