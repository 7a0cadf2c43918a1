/** Asks an instance whether a browser is connected to it now (no when NATS has no one there); undefined when it did not say. */
export type AskHolding = (instanceId: string, browserId: string) => Promise<boolean | undefined>;

/** One instance's directory entry that says the browser is connected to it. */
export interface LiveClaim {
  readonly key: string;
  readonly instanceId: string;
  /** When the instance took the browser: the same across its heartbeat's rewrites, new when it took it again. */
  readonly claim: number;
}

/** What an instance answered: yes, no, or nothing (which counts as yes); a no or nothing is asked again a while later. */
type Answer = boolean | 'none';

/** The questions about one browser's claims: asked again when the claims change, not when they are only rewritten. */
interface Round {
  readonly claims: string;
  readonly answers: Map<string, Answer>;
  askedAt: number;
  asking: boolean;
}

/** How long an instance that did not answer counts before it is asked again. */
const ASK_AGAIN_MS = 2_000;

/**
 * Which of several instances that each say a browser is connected to them holds it. Each instance writes only its
 * own entries, but any daemon's credentials can write an entry under its own name for any browser id: were the later
 * claim simply believed (as when a browser moves), a stolen seed would take a browser another instance holds, and
 * with it the commands of its sessions. So when more than one entry says "connected", every instance named is asked
 * ("holding": its connection to the browser answers a ping), and only a no stops an entry counting (also NATS having
 * no one there: the instance died); one that does not answer (silent, or too old to know the question) still counts,
 * and is asked again a while later. One
 * left holds the browser. Until the answers are in, and while more than one counts, none holds it: its commands are
 * refused for that while rather than sent to a liar (a claim's own number cannot decide: the writer of an entry
 * writes its claim too). A browser that moved costs one round of questions: the instance it left says no (its old
 * socket does not answer the ping), or has already written that it is away.
 */
export class ClaimDisputes {
  readonly #rounds = new Map<string, Round>();
  /** The instances last said to dispute each browser. */
  readonly #reported = new Map<string, string>();
  /** Set by the node once it can ask other instances. */
  ask: AskHolding | undefined;

  constructor(
    /** Called with the answers about a browser, which `record` stores: its holder may change. */
    private readonly answered: (browserId: string, record: () => void) => void,
    /** Called when, all asked, more than one instance still counts (says it holds the browser, or did not answer). */
    private readonly contested: (browserId: string, instanceIds: string[]) => void,
    /** Told what went wrong while asking (a listener that threw). */
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Of a browser's live claims (from more than one instance), those that count: all of them until answered. */
  counted(browserId: string, claims: readonly LiveClaim[]): LiveClaim[] {
    const round = this.#rounds.get(browserId);
    if (round?.claims !== roundOf(claims)) return [...claims];
    return claims.filter((claim) => round.answers.get(claim.key) !== false);
  }

  /** Asks about a browser's live claims when they changed, or when one did not answer a while ago; none: forgets. */
  settle(browserId: string, claims: readonly LiveClaim[]): void {
    if (claims.length < 2) {
      this.#rounds.delete(browserId);
      this.#reported.delete(browserId);
      return;
    }
    const id = roundOf(claims);
    let round = this.#rounds.get(browserId);
    if (round?.claims !== id) {
      round = { claims: id, answers: new Map(), askedAt: 0, asking: false };
      this.#rounds.set(browserId, round);
    }
    const open = claims.filter((claim) => {
      const answer = round.answers.get(claim.key);
      // Asked again a while later: one that did not answer, and one that said no while its entry still says connected.
      return answer === undefined || (answer !== true && Date.now() - round.askedAt >= ASK_AGAIN_MS);
    });
    if (open.length > 0 && !round.asking) this.#ask(browserId, round, open, claims).catch(this.failed);
  }

  async #ask(browserId: string, round: Round, open: readonly LiveClaim[], claims: readonly LiveClaim[]): Promise<void> {
    const ask = this.ask;
    if (ask === undefined) return;
    round.asking = true;
    round.askedAt = Date.now();
    let said: Array<boolean | undefined>;
    try {
      said = await Promise.all(open.map((claim) => ask(claim.instanceId, browserId)));
    } finally {
      round.asking = false;
    }
    // The claims changed while asking: a later round asks about them.
    if (this.#rounds.get(browserId) !== round) return;
    this.answered(browserId, () => {
      for (const [i, claim] of open.entries()) round.answers.set(claim.key, said[i] ?? 'none');
    });
    // Said once per dispute.
    const counting = this.counted(browserId, claims).map((claim) => claim.instanceId);
    const who = counting.length > 1 ? counting.sort().join(',') : undefined;
    if (who === undefined) this.#reported.delete(browserId);
    else if (this.#reported.get(browserId) !== who) {
      this.#reported.set(browserId, who);
      this.contested(browserId, counting);
    }
  }
}

/** A round's name: its claims, whatever order they came in. */
function roundOf(claims: readonly LiveClaim[]): string {
  return claims
    .map((claim) => `${claim.key}@${claim.claim}`)
    .sort()
    .join(' ');
}
