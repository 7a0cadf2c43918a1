/** Asks an instance whether a browser is connected to it now; false for no, gone, silent or unreadable. */
export type AskHolding = (instanceId: string, browserId: string) => Promise<boolean>;

/** One instance's directory entry that says the browser is connected to it. */
export interface LiveClaim {
  /** Its KV key and revision: an answer holds for the entry as it was asked about. */
  readonly key: string;
  readonly revision: number;
  readonly instanceId: string;
}

/**
 * Which of several instances that each say a browser is connected to them holds it. Each instance writes only its
 * own entries, but any daemon's credentials can write an entry under its own name for any browser id: were the later
 * claim simply believed (as when a browser moves), a stolen seed would take a browser another instance holds, and
 * with it the commands of its sessions. So when more than one entry says "connected", every instance named is asked
 * ("holding"), and only those that say yes still count. One left holds the browser. Until the answers are in, and
 * when more than one insists (someone lies), none holds it: its commands are refused for that while rather than
 * sent to a liar (a claim's own number cannot decide: the writer of an entry writes its claim too). A browser that
 * moved costs one round of questions: the instance it left says no, or has already written that it is away.
 */
export class ClaimDisputes {
  /** Entry key → the answer its instance gave for that revision of it. */
  readonly #answers = new Map<string, { revision: number; holding: boolean }>();
  /** Browsers being asked about now; a second round follows if an entry changed meanwhile. */
  readonly #asking = new Set<string>();
  /** Set by the node once it can ask other instances. */
  ask: AskHolding | undefined;

  constructor(
    /** Called with the answers about a browser, which `record` stores: its holder may change. */
    private readonly answered: (browserId: string, record: () => void) => void,
    /** Called when more than one instance insists the browser is connected to it. */
    private readonly contested: (browserId: string, instanceIds: string[]) => void,
  ) {}

  /** Whether the entry still counts as connected: not denied by its instance for this revision. */
  counts(claim: LiveClaim): boolean {
    return this.#answer(claim) !== false;
  }

  /** Asks the instances behind live claims of more than one instance (each counted) that have not answered yet. */
  settle(browserId: string, claims: LiveClaim[]): void {
    if (claims.some((claim) => this.#answer(claim) === undefined)) void this.#askAll(browserId, claims);
  }

  /** Forgets the answer about an entry that is gone. */
  forget(key: string): void {
    this.#answers.delete(key);
  }

  #answer(claim: LiveClaim): boolean | undefined {
    const known = this.#answers.get(claim.key);
    return known?.revision === claim.revision ? known.holding : undefined;
  }

  async #askAll(browserId: string, claims: LiveClaim[]): Promise<void> {
    const ask = this.ask;
    if (ask === undefined || this.#asking.has(browserId)) return;
    this.#asking.add(browserId);
    try {
      const open = claims.filter((claim) => this.#answer(claim) === undefined);
      const said = await Promise.all(open.map((claim) => ask(claim.instanceId, browserId)));
      this.answered(browserId, () => {
        for (const [i, claim] of open.entries()) this.#answers.set(claim.key, { revision: claim.revision, holding: said[i]! });
      });
      const insisting = claims.filter((claim) => this.#answer(claim) === true);
      if (insisting.length > 1)
        this.contested(
          browserId,
          insisting.map((claim) => claim.instanceId),
        );
    } finally {
      this.#asking.delete(browserId);
    }
  }
}
