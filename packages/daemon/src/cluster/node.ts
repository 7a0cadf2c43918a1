import { parseClusterReply, type BrowserEntry, type ClusterReply, type ClusterRequest, type EventEnvelope, type ExtensionInfo } from '@browsermcp/protocol';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { BrowserNotConnectedError, BrowserUnavailableError, ClusterUnavailableError, InstanceRejoiningError, crossedError, isDaemonError } from '../errors.js';
import { formatDuration } from '../router/duration.js';
import type { Executor, RemoteExecutors, SessionRouter } from '../router/index.js';
import type { SessionCloseReason } from '../router/listeners.js';
import type { ExtensionBrowserState, ExtensionBrowsers } from './extension-browsers.js';
import type { BrowserDirectory } from './directory.js';
import { DEFAULT_DIRECTORY_TTL_MS, joinCluster, type ClusterOptions } from './join.js';
import type { KvRouterStore } from './kv-store.js';
import { answers, askInstance, HOLDING_PING_MS, jsonOf } from './messages.js';
import { ClusterNames, localBrowserId } from './names.js';
import { onSessionEnded } from './ended-notices.js';
import { redactNatsUrl } from './nats-connection.js';
import { ForwardedEvents } from './forwarded-events.js';
import { PeerRequests } from './peer-requests.js';
import { natsFailure } from './nats-errors.js';
import { InFlightRequests } from './in-flight.js';
import { RemoteExecutor } from './remote-executor.js';
import { ClusterSweep } from './sweep.js';
import { withDeadline } from './with-deadline.js';

export { DEFAULT_DIRECTORY_TTL_MS, randomInstanceId, type ClusterOptions } from './join.js';

/** How often an instance writes its entries again; they expire after DIRECTORY_TTL_MS without it. */
export const DEFAULT_CLUSTER_HEARTBEAT_MS = 2_000;
/** How long each step of leaving the cluster may wait on NATS. */
const CLOSE_STEP_MS = 2_000;

/**
 * One daemon's membership of a cluster on NATS: its RouterStore (JetStream KV), the directory of which instance
 * holds which browser, proxies for the browsers other instances hold, and the subscriptions through which it runs
 * their commands for its own browsers. The router and the endpoints see only the store and the proxies.
 */
export class ClusterNode implements RemoteExecutors {
  readonly instanceId: string;
  readonly store: KvRouterStore;
  /** A secret every daemon of the cluster shares (kept in its store, which only they may read): see state-owners.ts. */
  readonly stateSecret: Uint8Array;
  readonly #nc: NatsConnection;
  readonly #names: ClusterNames;
  readonly #directory: BrowserDirectory;
  readonly #options: ClusterOptions;
  readonly #proxies = new Map<string, RemoteExecutor>();
  readonly #subscriptions: Subscription[] = [];
  readonly #sweep = new ClusterSweep();
  readonly #startedAt = Date.now();
  /** Requests waiting on each instance, to fail at once when that instance stops answering pings. */
  readonly #inFlight = new InFlightRequests();
  /** What other instances ask of this one (once attached). */
  #requests: PeerRequests | undefined;
  #attached:
    | { router: SessionRouter; extensions: ExtensionBrowsers; localBrowser: BrowserEntry | undefined; driving: (sessionId: string) => boolean }
    | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #beating: Promise<void> | undefined;
  #closed = false;
  /** The NATS connection is lost and being retried: cluster calls fail at once with ClusterUnavailable. */
  #down = false;
  /**
   * When NATS last came back. Until a directory TTL has passed since, another instance that does not answer may just
   * not have reconnected yet: it is "rejoining", not gone (a live one rejoins within a heartbeat of its reconnect).
   */
  #backAt: number | undefined;

  private constructor(
    nc: NatsConnection,
    store: KvRouterStore,
    directory: BrowserDirectory,
    instanceId: string,
    stateSecret: Uint8Array,
    options: ClusterOptions,
  ) {
    this.#nc = nc;
    this.store = store;
    this.stateSecret = stateSecret;
    this.#directory = directory;
    this.instanceId = instanceId;
    this.#options = options;
    this.#names = new ClusterNames(options.prefix);
    void this.#followConnection();
  }

  get down(): boolean {
    return this.#down;
  }

  async #followConnection(): Promise<void> {
    for await (const status of this.#nc.status()) {
      if (status.type === 'disconnect' && !this.#down) {
        this.#down = true;
        this.#options.logger.warn({ nats: redactNatsUrl(this.#options.url) }, 'lost the connection to NATS; retrying (cluster calls fail until it is back)');
      } else if (status.type === 'reconnect' && this.#down) {
        this.#down = false;
        this.#backAt = Date.now();
        // Entries that expired while NATS was away are kept until the others have had time to write them again, and
        // the sessions are read whole again (the watch may have missed changes meanwhile).
        this.#directory.keepUntil(this.#backAt + this.#directoryTtlMs);
        this.#options.logger.info({ nats: redactNatsUrl(this.#options.url) }, 'connected to NATS again');
        void this.store.refreshSessions().catch((error: unknown) => this.#options.logger.warn({ error }, 'could not read the sessions again'));
        void this.#beat();
      } else if (status.type === 'error') {
        // A permission NATS refused (a narrower config than this daemon needs) says so here, and nowhere else.
        this.#options.logger.warn({ nats: redactNatsUrl(this.#options.url), error: status.error.message }, 'NATS refused a request of this daemon');
      }
    }
  }

  /** Connects to NATS and opens (or creates) the cluster's buckets (join.ts). Fails with a message naming the fix. */
  static async connect(options: ClusterOptions): Promise<ClusterNode> {
    let node: ClusterNode | undefined;
    const joined = await joinCluster(options, () => node?.down === true);
    node = new ClusterNode(joined.nc, joined.store, joined.directory, joined.instanceId, joined.stateSecret, options);
    return node;
  }

  /** The executor id of this instance's own launched browser: unique in the cluster. */
  localExecutorId(): string {
    return localBrowserId(this.instanceId);
  }

  /**
   * Starts serving: commands for this instance's browsers, forwarded events and ended sessions, and the heartbeat
   * that keeps its directory entries alive.
   */
  async attach(
    router: SessionRouter,
    extensions: ExtensionBrowsers,
    localBrowser: { id: string; name: string } | undefined,
    /** Whether a live client connection here drives the session. */
    driving: (sessionId: string) => boolean,
  ): Promise<void> {
    const local: BrowserEntry | undefined = localBrowser && {
      id: localBrowser.id,
      instanceId: this.instanceId,
      kind: 'local',
      name: localBrowser.name,
      userId: null,
      connected: true,
    };
    this.#attached = { router, extensions, localBrowser: local, driving };
    const events = new ForwardedEvents({
      heldBy: (instanceId, executorId) => this.heldBy(instanceId, executorId),
      deliver: (executorId, event) => void router.peer.forwardedEvent(executorId, event),
      logger: this.#options.logger,
    });
    const requests = (this.#requests = new PeerRequests({
      events,
      store: this.store,
      router: () => this.router,
      userOf: (executorId) => extensions.records.get(executorId)?.userId,
      cluster: this,
      maxPayload: () => this.#nc.info?.max_payload ?? 1024 * 1024,
      senderOf: (subject) => this.#names.senderOf(subject),
      logger: this.#options.logger,
    }));
    this.#subscriptions.push(
      this.#nc.subscribe(this.#names.instanceSubject(this.instanceId, '*'), { callback: (_error, msg) => void requests.serve(msg) }),
      this.#nc.subscribe(this.#names.endedSubject, {
        callback: (_error, msg) =>
          void onSessionEnded(
            { store: this.store, instanceId: this.instanceId, logger: this.#options.logger, ended: (id, reason) => router.peer.sessionEnded(id, reason) },
            msg,
          ),
      }),
    );
    // A hello with a browser id that another user's extension holds on another instance is refused.
    extensions.ownerElsewhere = (browserId) => this.#directory.elsewhere(browserId, this.instanceId)?.userId;
    extensions.onChange((id, state) => void this.#extensionChanged(id, state));
    extensions.taken = (id) => void this.#extensionChanged(id, 'taken');
    // Its entry carries the browser's latest proof: written again at once, not a heartbeat later.
    extensions.proven = (id) => void this.#extensionChanged(id, 'connected');
    this.#directory.askHolding = (instanceId, browserId) => this.holding(instanceId, browserId);
    const contested = 'more than one instance says (or did not deny) this browser is connected to it: none gets its commands (SECURITY.md)';
    this.#directory.onContested = (browserId, instanceIds) => this.#options.logger.warn({ browserId, instanceIds }, contested);
    this.#directory.onError = (error) => this.#options.logger.warn({ error }, 'asking who holds a browser failed');
    this.#directory.onUnproven = (browserId, instanceId) =>
      this.#options.logger.warn(
        { browserId, instanceId },
        "ignored another instance's directory entry for a browser: it carries no proof from the browser itself, or of its user (SECURITY.md)",
      );
    // The browsers other instances hold: this instance's clients of them hear when they drop and come back.
    this.#directory.onBrowserChange = (browser) => {
      if (browser.instanceId !== this.instanceId && !extensions.records.has(browser.id)) {
        extensions.emit(browser.id, browser.connected ? 'connected' : 'reconnecting');
      }
    };
    await this.#nc.flush();
    await this.#beat();
    this.#heartbeat = setInterval(() => void this.#beat(), this.#options.heartbeatMs ?? DEFAULT_CLUSTER_HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  // ── RemoteExecutors ──────────────────────────────────────────────────────────────────────────────────────────

  get(executorId: string): Executor | undefined {
    const entry = this.#directory.browser(executorId);
    if (entry === undefined || entry.instanceId === this.instanceId) return undefined;
    let proxy = this.#proxies.get(executorId);
    if (proxy === undefined || proxy.kind !== entry.kind) {
      proxy = new RemoteExecutor(executorId, entry.kind, this);
      this.#proxies.set(executorId, proxy);
    }
    return proxy;
  }

  async drives(instanceId: string, sessionId: string): Promise<boolean> {
    if (instanceId === this.instanceId) return this.#attached?.driving(sessionId) ?? false;
    // No answer: gone or silent, nothing drives the session there.
    const reply = await askInstance(this.#nc, this.#to(instanceId), { op: 'driving', sessionId });
    return typeof reply === 'object' && reply.driving === true;
  }

  /**
   * Whether `browserId` is connected to `instanceId` now, as that instance says (this one: its connection answered a
   * ping just now); no when NATS has no one there (it died: a browser that moved on is not held up until its entry
   * expires), undefined when it did not say (silent, or too old to know the question).
   */
  async holding(instanceId: string, browserId: string): Promise<boolean | undefined> {
    if (instanceId !== this.instanceId) {
      const reply = await askInstance(this.#nc, this.#to(instanceId), { op: 'holding', browserId });
      return reply === 'gone' ? false : reply?.holding;
    }
    const here = this.#attached;
    if (here?.localBrowser?.id === browserId) return true;
    return (await here?.extensions.records.get(browserId)?.connection?.answersPing(HOLDING_PING_MS)) ?? false;
  }

  /** Whether the directory has a counted entry of `instanceId` for the browser (BrowserDirectory.heldBy). */
  heldBy(instanceId: string, browserId: string): boolean {
    return this.#directory.heldBy(browserId, instanceId);
  }

  sessionEnded(sessionId: string, reason: SessionCloseReason): void {
    this.#requests?.ended(sessionId);
    this.#publish(this.#names.endedSubject, { instanceId: this.instanceId, sessionId, reason });
  }

  forwardEvent(executorId: string, event: EventEnvelope, servedBy: string): void {
    this.#publish(this.#to(servedBy), { op: 'event', executorId, event } satisfies ClusterRequest);
  }

  // ── what the endpoints ask ───────────────────────────────────────────────────────────────────────────────────

  /** Every browser of the cluster a user may use: each instance's own, and that user's extensions wherever held. */
  browsersFor(userId: string | null): ExtensionInfo[] {
    return this.#directory
      .browsers()
      .filter((b) => b.kind === 'local' || b.userId === userId)
      .map((b) => ({ id: b.id, name: b.name, connected: b.connected, instance: b.instanceId }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  /** The live instances of the cluster, as the directory has them. */
  instanceIds(): string[] {
    return this.#directory.instances().map((instance) => instance.instanceId);
  }

  /** For /health. */
  summary(): { instanceId: string; instances: number; browsers: number } {
    return { instanceId: this.instanceId, instances: this.#directory.instances().length, browsers: this.#directory.browsers().length };
  }

  // ── the wire ─────────────────────────────────────────────────────────────────────────────────────────────────

  /** Asks the instance that holds `executorId`; fails fast when that instance is gone (NATS: no responders). */
  async request(executorId: string, request: ClusterRequest, timeoutMs: number): Promise<ClusterReply & { ok: true }> {
    if (this.#down) throw new ClusterUnavailableError('the connection to NATS is lost and is being retried');
    const entry = this.#directory.browser(executorId);
    if (entry === undefined) throw new BrowserNotConnectedError(executorId);
    const { instanceId } = entry;
    const { lost, done } = this.#inFlight.track(instanceId, executorId);
    let msg: Msg;
    try {
      msg = await Promise.race([this.#nc.request(this.#to(instanceId), JSON.stringify(request), { timeout: timeoutMs }), lost]);
    } catch (error) {
      throw isDaemonError(error) ? error : this.#requestError(error, executorId, instanceId);
    } finally {
      done();
    }
    const reply = parseClusterReply(jsonOf(msg));
    if (!reply.ok) throw new ClusterUnavailableError(`instance ${entry.instanceId} answered with an unreadable reply (${reply.message})`);
    if (!reply.value.ok) throw crossedError(reply.value.error);
    return reply.value;
  }

  /** Tells the instance that holds `executorId`, with no answer expected. */
  notify(executorId: string, request: ClusterRequest): void {
    const entry = this.#directory.browser(executorId);
    if (entry !== undefined) this.#publish(this.#to(entry.instanceId), request);
  }

  get router(): SessionRouter {
    if (this.#attached === undefined) throw new Error('the cluster node is not attached to a router yet');
    return this.#attached.router;
  }

  #requestError(error: unknown, executorId: string, instanceId: string): Error {
    const failure = natsFailure(error);
    const message = error instanceof Error ? error.message : String(error);
    if (failure === 'no-responders') return this.#silentError(executorId, instanceId);
    if (this.#nc.isClosed() || failure === 'closed') return new ClusterUnavailableError(message);
    if (failure === 'timeout') return this.#silentError(executorId, instanceId);
    return new ClusterUnavailableError(message);
  }

  /** Why `instanceId` does not answer for `executorId`: gone, or not back yet while the cluster rejoins NATS. */
  #silentError(executorId: string, instanceId: string): Error {
    const since = this.#backAt === undefined ? Infinity : Date.now() - this.#backAt;
    return since < this.#directoryTtlMs
      ? new InstanceRejoiningError(executorId, formatDuration(since), instanceId)
      : new BrowserUnavailableError(executorId, instanceId);
  }

  /** Where a request to `instanceId` goes: its subject, with this instance as the sender (the only one NATS lets it use). */
  #to(instanceId: string): string {
    return this.#names.instanceSubject(instanceId, this.instanceId);
  }

  get #directoryTtlMs(): number {
    return this.#options.directoryTtlMs ?? DEFAULT_DIRECTORY_TTL_MS;
  }

  #publish(subject: string, message: unknown): void {
    try {
      this.#nc.publish(subject, JSON.stringify(message));
    } catch (error) {
      this.#options.logger.warn({ subject, error }, 'could not publish to the cluster');
    }
  }

  // ── the heartbeat ────────────────────────────────────────────────────────────────────────────────────────────

  #beat(): Promise<void> {
    // One beat at a time: a slow NATS must not pile them up.
    return (this.#beating ??= this.#beatOnce()
      .catch((error: unknown) => this.#options.logger.warn({ error }, 'cluster heartbeat failed; retrying'))
      .finally(() => {
        this.#beating = undefined;
      }));
  }

  async #beatOnce(): Promise<void> {
    if (this.#closed || this.#down || this.#attached === undefined) return;
    const { extensions, localBrowser, router } = this.#attached;
    await this.#directory.putInstance({ instanceId: this.instanceId, startedAt: this.#startedAt, version: this.#options.version });
    if (localBrowser) await this.#directory.putBrowser(localBrowser);
    for (const record of [...extensions.records.values()]) {
      const entry = this.#extensionEntry(record.id);
      if (entry === undefined) continue;
      const holder = await this.#directory.refreshBrowserIf(entry);
      if (holder !== this.instanceId && record.connection === null) {
        // It came back on another instance while away from this one: that instance serves its sessions now.
        router.peer.executorMoved(record.id);
        extensions.forget(record.id);
        this.#options.logger.info({ browserId: record.id, instanceId: holder }, 'extension reconnected to another instance');
      }
    }
    await this.#directory.refresh();
    await Promise.all(this.#inFlight.instances().map((instanceId) => this.#checkAlive(instanceId)));
    await this.#sweep.run({
      store: this.store,
      router,
      liveInstances: new Set(this.instanceIds()),
      claimed: (executorId) => this.#directory.claimed(executorId),
      driving: (sessionId) => this.#attached?.driving(sessionId) ?? false,
      logger: this.#options.logger,
    });
  }

  /** A command in flight on an instance that died would wait for its timeout: a ping finds out within a beat. */
  async #checkAlive(instanceId: string): Promise<void> {
    if (this.#down) return; // NATS is away, not the instance
    if (await answers(this.#nc, this.#to(instanceId))) return;
    this.#inFlight.failAll(instanceId, (executorId) => this.#silentError(executorId, instanceId));
  }

  #extensionEntry(id: string): BrowserEntry | undefined {
    const record = this.#attached?.extensions.records.get(id);
    if (record === undefined) return undefined;
    return {
      id,
      instanceId: this.instanceId,
      kind: 'extension',
      name: record.name,
      userId: record.userId,
      connected: record.connection !== null,
      ...(record.hold !== undefined ? { hold: record.hold } : {}),
    };
  }

  async #extensionChanged(id: string, state: ExtensionBrowserState | 'taken'): Promise<void> {
    try {
      if (state === 'gone') return await this.#directory.deleteBrowser(id);
      const entry = this.#extensionEntry(id);
      if (entry === undefined) return;
      // A hello here takes the browser over (a claim), as soon as it comes; its sessions open again after.
      if (state === 'taken') await this.#directory.claimBrowser(entry);
      else await this.#directory.refreshBrowserIf(entry);
    } catch (error) {
      this.#options.logger.warn({ browserId: id, state, error }, 'could not update the cluster directory');
    }
  }

  /** Leaves the cluster: its entries go at once (so others fail fast), then the connection drains. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    // Shutdown never waits on NATS for long: what it cannot say in time, the TTL says for it.
    await withDeadline(this.#beating, CLOSE_STEP_MS);
    this.#directory.stop();
    this.store.stop();
    if (!this.#down) {
      await withDeadline(
        (async () => {
          if (this.#attached) {
            const mine = this.#directory.browsers().filter((b) => b.instanceId === this.instanceId);
            for (const browser of mine) await this.#directory.deleteBrowser(browser.id);
          }
          await this.#directory.deleteInstance();
        })(),
        CLOSE_STEP_MS,
      );
    }
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
    if (
      this.#down ||
      !(await withDeadline(
        this.#nc.drain().then(() => true),
        CLOSE_STEP_MS,
      ))
    )
      await this.#nc.close();
  }
}
