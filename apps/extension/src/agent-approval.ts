import type { CommandEnvelope } from '@browsermcp/protocol';
import { ToolError } from '@browsermcp/tools';
import { clearApprovalRequest, showApprovalRequest } from './ask-person.js';
import { APPROVAL_WAIT_MS, type Approvals } from './approvals.js';
import { agentName, identityOf, type SessionState } from './session-state.js';

export interface ApprovalHooks {
  /** Reads the person's approval settings as they are now. */
  sync(): Promise<void>;
  /** Tells the daemon the command waits for the person (it holds it, and the client hears why). */
  waiting(message: string, ms: number): void;
}

/**
 * Waits until the person allowed this agent (a new agent is asked in the popup): its command is held meanwhile,
 * and its client hears what it waits for. Throws what the agent should know when denied or unanswered.
 */
export async function awaitApproval(approvals: Approvals, s: SessionState, command: CommandEnvelope, hooks: ApprovalHooks): Promise<void> {
  const name = agentName(s.clientName);
  await s.recalled;
  // Decided with the person's settings as they are now: a change made a moment before the agent came must count.
  if (!approvals.known(s.id)) await hooks.sync();
  let approval = approvals.opened(s.id, identityOf(s));
  if (approval === 'pending') {
    hooks.waiting(`Waiting for the person to allow "${name}" in the browsermcp popup (Allow once / Always allow / Deny)`, APPROVAL_WAIT_MS);
    s.wants = describeWish(command);
    showApprovalRequest(s.id, name, identityOf(s), s.wants);
    try {
      approval = await approvals.waitFor(s.id);
    } finally {
      s.wants = undefined;
      clearApprovalRequest(s.id);
    }
  }
  if (approval === 'allowed') return;
  if (approval === 'denied') {
    throw new ToolError(`The person denied "${name}" the use of their browser (in the browsermcp popup). Do not try again unless they ask you to.`);
  }
  throw new ToolError(
    `The person did not answer within ${APPROVAL_WAIT_MS / 60_000} minutes whether "${name}" may use their browser. Ask them to open the browsermcp popup and press Allow, then call the tool again.`,
  );
}

/** A waiting call's wish in the person's words: where it wants to go, or which tool it wants to use. */
function describeWish(command: CommandEnvelope): string {
  const url = (command.payload as { url?: unknown } | null)?.url;
  if (command.name === 'browser_navigate' && typeof url === 'string') return `open ${url.length > 120 ? `${url.slice(0, 119)}…` : url}`;
  return `use ${command.name}`;
}
