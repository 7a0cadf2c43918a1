/** Whether an agent may use this browser: the person's answer in the popup. */
export type Approval = 'allowed' | 'pending' | 'denied';
/** The popup's three buttons. */
export type Decision = 'once' | 'always' | 'deny';

/** How long a call waits for the person to answer before it says so to its agent. */
export const APPROVAL_WAIT_MS = 120_000;

/** An agent the person always allows: by the identity its gateway authenticated, with the name it showed then. */
export interface AllowedAgent {
  agent: string;
  name: string;
  /** When the person pressed Always allow (ms since the epoch). */
  since: number;
}

/** The stored list (chrome.storage.local `allowedAgents`), read defensively: what is not an entry is dropped. */
export function parseAllowedAgents(value: unknown): AllowedAgent[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v: unknown) => {
    const e = v as Partial<AllowedAgent> | null;
    return e && typeof e.agent === 'string' && typeof e.name === 'string' && typeof e.since === 'number'
      ? [{ agent: e.agent, name: e.name, since: e.since }]
      : [];
  });
}

interface State {
  approval: Approval;
  /** When the person was asked (the wait runs from here). */
  askedAt: number;
  readonly waiters: Set<() => void>;
}

/**
 * "May this agent use my browser?", asked once per new agent unless the person turned asking off in the options page;
 * "Always allow" remembers the agent by the identity its gateway authenticated (its API key), not by the name it gives
 * itself, which any agent could copy. The state per session survives worker restarts through the sessions' own
 * storage (see BrowserSessions).
 */
export class Approvals {
  private ask = true;
  private readonly always = new Map<string, AllowedAgent>();
  private readonly states = new Map<string, State>();

  /** `changed` runs after every change of what waits for the person (the badge follows it). */
  constructor(private readonly changed: () => void) {}

  configure(ask: boolean, alwaysAllowed: readonly AllowedAgent[]): void {
    this.ask = ask;
    this.always.clear();
    for (const entry of alwaysAllowed) this.always.set(entry.agent, entry);
    // Turning asking off (or allowing a name elsewhere) answers whoever is waiting.
    for (const [, state] of this.states) if (state.approval === 'pending' && !this.ask) this.settle(state, 'allowed');
    this.changed();
  }

  /** A session opened (or was announced again): allowed at once, or waiting for the person. `agent`: its identity. */
  opened(sessionId: string, agent: string, restored?: Approval): Approval {
    const known = this.states.get(sessionId);
    if (known) return known.approval;
    const approval: Approval = restored ?? (!this.ask || this.always.has(agent) ? 'allowed' : 'pending');
    this.states.set(sessionId, { approval, askedAt: Date.now(), waiters: new Set() });
    this.changed();
    return approval;
  }

  /** Whether this session's approval was decided (or asked) already. */
  known(sessionId: string): boolean {
    return this.states.has(sessionId);
  }

  /** What the popup shows: an agent that has made no call since it was announced has not been asked anything yet. */
  shown(sessionId: string): Approval | 'unasked' {
    return this.states.get(sessionId)?.approval ?? (this.ask ? 'unasked' : 'allowed');
  }

  of(sessionId: string): Approval {
    return this.states.get(sessionId)?.approval ?? (this.ask ? 'pending' : 'allowed');
  }

  /** Agents whose call waits for the person's answer now (the badge): not those asked earlier and gone quiet. */
  get pendingCount(): number {
    let n = 0;
    for (const s of this.states.values()) if (s.approval === 'pending' && s.waiters.size > 0) n++;
    return n;
  }

  /** Resolves with the answer, or with 'pending' once APPROVAL_WAIT_MS has passed since the person was asked. */
  async waitFor(sessionId: string): Promise<Approval> {
    const state = this.states.get(sessionId);
    if (state?.approval !== 'pending') return this.of(sessionId);
    // A question left unanswered is asked again by the agent's next call.
    if (Date.now() - state.askedAt >= APPROVAL_WAIT_MS) state.askedAt = Date.now();
    const remainingMs = APPROVAL_WAIT_MS - (Date.now() - state.askedAt);
    await new Promise<void>((resolve) => {
      const changed = this.changed;
      const timer = setTimeout(done, remainingMs);
      function done(): void {
        clearTimeout(timer);
        state!.waiters.delete(done);
        changed();
        resolve();
      }
      state.waiters.add(done);
      this.changed();
    });
    return state.approval;
  }

  /** The person answered in the popup. "Always allow" remembers the agent; returns the agents always allowed now. */
  decide(sessionId: string, who: { agent: string; name: string }, decision: Decision): AllowedAgent[] {
    const state = this.states.get(sessionId);
    if (state) this.settle(state, decision === 'deny' ? 'denied' : 'allowed');
    if (decision === 'always') this.always.set(who.agent, { agent: who.agent, name: who.name, since: Date.now() });
    this.changed();
    return [...this.always.values()];
  }

  forget(sessionId: string): void {
    const state = this.states.get(sessionId);
    if (!state) return;
    this.states.delete(sessionId);
    for (const wake of [...state.waiters]) wake();
    this.changed();
  }

  private settle(state: State, approval: Approval): void {
    state.approval = approval;
    for (const wake of [...state.waiters]) wake();
  }
}

/**
 * Whether the person may share a tab with this agent: one at work in their browser (it acted) that they allowed, or
 * that needed no Allow (they do not ask before new agents); never one they denied or have not answered, nor a client
 * that only looked (listed the tools: allowed by default, it has no work here).
 */
export function canShareWith(agent: { approval: Approval | 'unasked'; lastAction: unknown }): boolean {
  return (agent.approval === 'allowed' || agent.approval === 'unasked') && agent.lastAction !== null;
}
