import { parseClusterRequest, type ClusterReply } from '@browsermcp/protocol';
import type { Msg } from '@nats-io/transport-node';
import { ClusterUnavailableError, crossError, InvalidArgumentError, SessionInUseError, SessionNotFoundError } from '../errors.js';
import { checkTabOwner } from '../router/tab-claims.js';
import type { RouterLogger, SessionRecord, SessionRouter } from '../router/index.js';
import type { ForwardedEvents } from './forwarded-events.js';
import type { KvRouterStore } from './kv-store.js';
import { jsonOf } from './messages.js';
import { CLOCK_SKEW_MS, VERSION_LIFETIME_MS } from './session-versions.js';

/** Sessions whose last sender is remembered (the oldest forgotten past it). */
const MAX_SERVED_FOR = 10_000;

/** What serving another instance's requests needs of this one. */
export interface PeerRequestsOptions {
  readonly store: KvRouterStore;
  /** This instance's router (once attached). */
  readonly router: () => SessionRouter;
  /** The user whose browser `executorId` is, as its extension authenticated (null: the daemon's own). */
  readonly userOf: (executorId: string) => string | null | undefined;
  /**
   * This instance, the live instances of the cluster, and whether a client of an instance (this one, or another over
   * NATS) drives a session now.
   */
  readonly cluster: {
    readonly instanceId: string;
    instanceIds(): string[];
    drives(instanceId: string, sessionId: string): Promise<boolean>;
    holding(instanceId: string, browserId: string): Promise<boolean | undefined>;
  };
  /** The most bytes NATS lets one message be. */
  readonly maxPayload: () => number;
  /** Where the events of browsers other instances hold go, checked against who sent them. */
  readonly events: ForwardedEvents;
  /** The instance that sent a request, read from its subject (ClusterNames.senderOf). */
  readonly senderOf: (subject: string) => string | undefined;
  readonly logger: RouterLogger;
}

/**
 * What other instances ask of the browsers this one holds (run a command, open or close a session, cancel, ping,
 * "do you drive it?", "is the browser connected to you?") and tell it of the browsers they hold (events), each checked against the store rather than taken on the asker's word, and answered. A session's
 * commands are run only for the instance that serves its client (the record's `servedBy`, the sender NATS vouches
 * for by its subject): another daemon's credentials do not reach a session served elsewhere.
 */
export class PeerRequests {
  /** The instance that sent each command running here, so that only it may cancel the command. */
  readonly #senders = new Map<string, string>();
  /**
   * The instance each session's requests last came from, and the revision of the record it was served under: another
   * instance takes it only once that one's client is gone, and a record written since is checked again.
   */
  readonly #servedFor = new Map<string, { sender: string; revision: number; opening: number }>();

  /**
   * Sessions that ended here (closed by their server, or by this instance: stopped, browser gone), most recent last:
   * a record of one written back (by a daemon that served it, which may sign it again) does not open it again.
   */
  readonly #ended = new Map<string, { opening: number; until: number }>();

  constructor(private readonly o: PeerRequestsOptions) {}

  /**
   * Remembers that a session another instance served ended here (see #ended): the opening that ended, for as long as
   * a version of it could still count; the oldest forgotten past MAX_SERVED_FOR. A later opening of the id is another
   * session. One that only this instance served is not remembered: no other daemon's seed writes its versions.
   */
  ended(sessionId: string): void {
    const opening = this.#servedFor.get(sessionId)?.opening;
    if (opening === undefined) return;
    this.#ended.delete(sessionId);
    this.#ended.set(sessionId, { opening, until: Date.now() + VERSION_LIFETIME_MS + 2 * CLOCK_SKEW_MS });
    if (this.#ended.size > MAX_SERVED_FOR) this.#ended.delete(this.#ended.keys().next().value!);
  }

  async serve(msg: Msg): Promise<void> {
    const sender = this.o.senderOf(msg.subject);
    const request = parseClusterRequest(jsonOf(msg));
    if (!request.ok || sender === undefined) {
      const reason = request.ok ? `no sender in its subject ${msg.subject}` : request.message;
      this.o.logger.warn({ reason }, 'dropped an unreadable cluster request');
      return this.reply(msg, { ok: false, error: crossError(new InvalidArgumentError(`unreadable cluster request: ${reason}`)) });
    }
    const router = this.o.router();
    const call = request.value;
    try {
      switch (call.op) {
        case 'send': {
          await this.checkSession(sender, call.executorId, call.command.sessionId, call.command.tabId);
          this.#senders.set(call.command.wireId, sender);
          try {
            return this.reply(msg, { ok: true, response: await router.peer.run(call.executorId, call.command, call.timeoutMs) });
          } finally {
            this.#senders.delete(call.command.wireId);
          }
        }
        case 'open':
          await router.peer.openSession(await this.checkSession(sender, call.session.executorId, call.session.sessionId));
          return this.reply(msg, { ok: true });
        case 'close':
          // Sent once the session left the store: one still open there is not closed on another's word.
          if ((await this.o.store.getSessionUnchecked(call.sessionId, sender)) !== undefined) {
            throw new InvalidArgumentError(`session ${call.sessionId} is still open; close it through the router that serves it`);
          }
          await router.peer.closeSession(call.executorId, call.sessionId);
          // Remembered as ended only where it ran: closes of made-up ids must not push the real ones out.
          if (this.#servedFor.has(call.sessionId)) this.ended(call.sessionId);
          this.#servedFor.delete(call.sessionId);
          return this.reply(msg, { ok: true });
        case 'cancel':
          // Only the instance that sent a command stops it.
          if (this.#senders.get(call.wireId) === sender) router.peer.cancel(call.wireId, call.reason);
          return undefined;
        case 'ping':
          return this.reply(msg, { ok: true });
        case 'driving':
          return this.reply(msg, { ok: true, driving: await this.o.cluster.drives(this.o.cluster.instanceId, call.sessionId) });
        case 'holding':
          return this.reply(msg, { ok: true, holding: (await this.o.cluster.holding(this.o.cluster.instanceId, call.browserId)) === true });
        case 'event':
          return await this.o.events.accept(sender, call.executorId, call.event);
      }
    } catch (error) {
      return this.reply(msg, { ok: false, error: crossError(error) });
    }
  }

  /**
   * The session is open on this browser, for the user whose browser it is, served by the instance that asks (when its
   * record names one), and the tab it names is the session's: read from the store, in a record signed by the instance
   * it names as its server (record-signatures.ts). Anything else reads as not found.
   */
  private async checkSession(sender: string, executorId: string, sessionId: string, tabId?: string): Promise<SessionRecord> {
    // The asker's own version as the bucket holds it now: it may have just written it.
    const found = await this.o.store.getVerifiedSession(sessionId, sender);
    const ended = this.#ended.get(sessionId);
    if (ended !== undefined && Date.now() < ended.until && (found?.opening ?? 0) <= ended.opening) {
      this.o.logger.warn({ sessionId, sender }, 'refused a request for a session that ended here (its record was written back)');
      throw new SessionNotFoundError(sessionId);
    }
    if (found !== undefined && !found.verified) {
      this.o.logger.warn(
        { sessionId, servedBy: found.record.servedBy, sender },
        'refused a request for a session whose record the instance it names did not sign, or whose user it did not prove',
      );
      throw new SessionNotFoundError(sessionId);
    }
    const session = found?.record;
    const revision = found?.revision ?? 0;
    const user = this.o.userOf(executorId);
    if (session === undefined || session.executorId !== executorId || (user != null && session.userId !== user)) throw new SessionNotFoundError(sessionId);
    if (session.servedBy !== undefined && session.servedBy !== sender) {
      this.o.logger.warn({ sessionId, servedBy: session.servedBy, sender }, 'refused a request for a session another instance serves');
      throw new SessionNotFoundError(sessionId);
    }
    await this.checkNotDrivenElsewhere(sender, sessionId, revision, found?.opening ?? 0);
    if (tabId !== undefined) await checkTabOwner(this.o.store, executorId, sessionId, tabId);
    return session;
  }

  /**
   * The store says who serves a session, but any daemon may write the store (one signed by its own instance, or an
   * old record of its own written back): before it serves a new sender, or the same one under a record written since,
   * this instance asks the one it served before and its own clients — every live instance when it knows of none
   * (it started since) or the record changed — whether a live client still drives the session, as an instance taking
   * up a session asks (router.resumeSession). A session is taken only from a client that is gone.
   */
  private async checkNotDrivenElsewhere(sender: string, sessionId: string, revision: number, opening: number): Promise<void> {
    const before = this.#servedFor.get(sessionId);
    if (before?.sender === sender && before.revision === revision) return;
    const { cluster } = this.o;
    const asked = before !== undefined && before.sender !== sender ? [before.sender, cluster.instanceId] : [cluster.instanceId, ...cluster.instanceIds()];
    const holders = [...new Set(asked.filter((id) => id !== sender))];
    const driving = await Promise.all(holders.map((holder) => cluster.drives(holder, sessionId)));
    const holder = holders.find((_, i) => driving[i]);
    if (holder !== undefined) {
      this.o.logger.warn({ sessionId, sender, drivenFrom: holder }, 'refused a request for a session a live client drives on another instance');
      throw new SessionInUseError(sessionId, holder);
    }
    this.#servedFor.delete(sessionId);
    this.#servedFor.set(sessionId, { sender, revision, opening });
    // Sessions that ended elsewhere are forgotten in the order they were last served.
    if (this.#servedFor.size > MAX_SERVED_FOR) this.#servedFor.delete(this.#servedFor.keys().next().value!);
  }

  private reply(msg: Msg, reply: ClusterReply): void {
    if (!msg.reply) return;
    let text = JSON.stringify(reply);
    const max = this.o.maxPayload();
    if (Buffer.byteLength(text) > max) {
      const error = new ClusterUnavailableError(
        `the answer (${Buffer.byteLength(text)} bytes) is larger than NATS lets one message be (max_payload ${max}); raise max_payload in nats-server's config`,
      );
      text = JSON.stringify({ ok: false, error: crossError(error) } satisfies ClusterReply);
    }
    msg.respond(text);
  }
}
