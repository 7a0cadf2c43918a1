import type { ClusterReply, ClusterRequest, CommandEnvelope, ResponseEnvelope } from '@browsermcp/protocol';
import { MAX_HOLD_MS } from '../router/events.js';
import type { Executor, ExecutorKind, SessionRecord } from '../router/index.js';

/** How long a reply to a session call (open, close) may take. */
const CALL_TIMEOUT_MS = 10_000;

/** What a remote executor needs of its cluster node: a request to the instance that holds the browser, a notice. */
export interface RemoteCalls {
  request(executorId: string, request: ClusterRequest, timeoutMs: number): Promise<ClusterReply & { ok: true }>;
  notify(executorId: string, request: ClusterRequest): void;
}

/** A browser another instance holds, as an Executor of this instance's router. */
export class RemoteExecutor implements Executor {
  constructor(
    readonly id: string,
    readonly kind: ExecutorKind,
    private readonly node: RemoteCalls,
  ) {}

  async send(command: CommandEnvelope, timeoutMs: number): Promise<ResponseEnvelope | undefined> {
    // Waits as long as the router could (a command held for the person included); the router's own timeout
    // answers the caller first and cancels the command there.
    const reply = await this.node.request(this.id, { op: 'send', executorId: this.id, command, timeoutMs }, timeoutMs + MAX_HOLD_MS);
    return reply.response;
  }

  async openSession(session: SessionRecord): Promise<void> {
    // The browser's instance opens the session from the store's record (signed, its private part sealed there), not
    // from this message: only its ids travel in it.
    await this.node.request(this.id, { op: 'open', session: { sessionId: session.sessionId, executorId: session.executorId } }, CALL_TIMEOUT_MS);
  }

  async closeSession(sessionId: string): Promise<void> {
    await this.node.request(this.id, { op: 'close', executorId: this.id, sessionId }, CALL_TIMEOUT_MS);
  }

  cancel(command: CommandEnvelope, reason: 'cancelled' | 'timeout'): void {
    this.node.notify(this.id, { op: 'cancel', wireId: command.wireId, reason });
  }
}
