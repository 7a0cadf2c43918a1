import {
  jsonRpcNotification,
  jsonRpcRequest,
  parseEnvelope,
  parseMessage,
  parseProxyResult,
  proxyControlId,
  ProxyMethods,
  createEvent,
  ExtensionCloseCodes,
  ExtensionEvents,
  parseSessionStopped,
  responseFor,
  type CommandEnvelope,
  type InputFile,
  type ResponseEnvelope,
  type HelloPayload,
  type Envelope,
  type CancelPayload,
  type SessionOpenedPayload,
  type SessionSettings,
  newPairingNonce,
  type SealedChannel,
} from '@browsermcp/protocol';
import { errorResult, ToolError } from '@browsermcp/tools';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import { BrowserDisconnectedError } from '../errors.js';
import { formatDuration } from '../router/duration.js';
import type { ClientFolders, Executor, SessionRecord, SessionRouter } from '../router/index.js';
import type { NodeFileAccess } from '../local/files.js';
import type { TokenVerifier } from './auth.js';
import { namedOutputDirFor, readInputFiles, withOutputsWritten } from './wire-files.js';
import { stillThere } from './heartbeat.js';
import type { ExtensionRecord, ExtensionRegistry } from './extension-registry.js';
import { HoldProver } from './hold-prover.js';
import { checkPairing } from './pairing-answer.js';
import { helloRefusal, parseHello } from './hello.js';

export { ExtensionRegistry, type ExtensionRecord } from './extension-registry.js';
export { parseHello } from './hello.js';

/** Why a browser may not sign a hold proof: it signs only an instant near its own clock. */
const CLOCK_HINT = "is the browser's clock more than 10 minutes off?";
/** Frames kept while a browser's first hold proof is awaited. */
const MAX_EARLY_FRAMES = 100;

/** WebSocket close codes on /extension: the protocol's, under the name this package has exported. */
export const CloseCodes = ExtensionCloseCodes;

export interface ExtensionConnectionOptions {
  socket: WebSocket;
  router: SessionRouter;
  registry: ExtensionRegistry;
  log: FastifyBaseLogger;
  verifier: TokenVerifier | undefined;
  /** The pairing secret every connection must prove it holds (see DaemonAppOptions.pairingSecret). */
  pairingSecret?: Uint8Array | undefined;
  /** In a cluster: the instance id the browser signs hold proofs for (DaemonAppOptions.holdProofsFor). */
  holdProofsFor?: string | undefined;
  /** How often the browser is asked for a new hold proof. Default HOLD_PROOF_RENEW_MS. */
  holdProofRenewMs?: number | undefined;
  /** The port the extension reached this daemon on: a pairing proof holds only for an address with this port. */
  port: number;
  helloTimeoutMs: number;
  gracePeriodMs: number;
  /** Sent with every session_opened: how tools behave in this browser's sessions. */
  sessionSettings?: SessionSettings | undefined;
  /** The file policy for this browser's uploads and saved files; without it, tools that need files say so. */
  files?: NodeFileAccess | undefined;
}

/**
 * One extension's WebSocket as an Executor: commands go out as v2 envelopes, responses and events come back to the
 * router. State: `authenticating` (only with auth) → `waiting-hello` → `proving` (only in a cluster: the browser signs
 * that this instance holds it) → `ready` → `closed`.
 */
export class ExtensionConnection implements Executor {
  readonly kind = 'extension' as const;
  private browserId: string | undefined;
  private state: 'authenticating' | 'waiting-hello' | 'proving' | 'ready' | 'closed';
  /** The hello, while its browser signs its first hold proof. */
  private provingHello: HelloPayload | undefined;
  /** In a cluster: the browser's hold proofs, from its hello on. */
  private prover: HoldProver | undefined;
  /** What the extension sent while its first proof was awaited, heard once the browser is taken. */
  private readonly early: Envelope[] = [];
  private userId: string | null = null;
  private authName: string | undefined;
  private readonly authRequestId: string;
  /** This connection's nonce for the pairing proofs, when the daemon requires pairing. */
  private readonly pairingNonce: string | undefined;
  private readonly helloTimer: ReturnType<typeof setTimeout>;
  private readonly o: ExtensionConnectionOptions;
  /** The client's folders of the commands sent with some, until their responses (or cancels) come. */
  private readonly callFolders = new Map<string, ClientFolders>();
  /** After a pairing: every frame either way is sealed (protocol's channel.ts). */
  private channel: SealedChannel | undefined;
  private static authSequence = 0;

  constructor(options: ExtensionConnectionOptions) {
    this.o = options;
    this.authRequestId = proxyControlId(++ExtensionConnection.authSequence);
    this.pairingNonce = options.pairingSecret ? newPairingNonce() : undefined;
    this.state = options.verifier || options.pairingSecret ? 'authenticating' : 'waiting-hello';
    this.helloTimer = setTimeout(() => {
      const waits: Record<string, string> = { authenticating: 'answer authenticate', proving: `sign its hold proof (${CLOCK_HINT})` };
      const what = waits[this.state] ?? 'send its hello';
      this.closeWith(this.state === 'authenticating' ? CloseCodes.Unauthorized : CloseCodes.BadHello, `the extension did not ${what} in time`);
    }, options.helloTimeoutMs);
    this.helloTimer.unref();
    options.socket.on('message', (data, isBinary) => {
      if (isBinary) return this.closeWith(CloseCodes.BadHello, 'binary frames are not v2 envelopes; send JSON text');
      void this.onMessage(data.toString()).catch((error: unknown) => this.o.log.warn({ error }, 'extension message failed'));
    });
    options.socket.once('close', (code) => this.onClose(code));
    // The daemon speaks first, so the extension never guesses with a timer whether a question is coming: with auth
    // or pairing it asks `authenticate`; without, it says `authenticated` at once, and the extension answers with
    // its hello.
    if (this.state === 'authenticating') {
      const params = this.pairingNonce ? { pairing: { nonce: this.pairingNonce } } : undefined;
      this.sendJson(jsonRpcRequest(this.authRequestId, ProxyMethods.authenticate, params));
    } else this.sendJson(jsonRpcNotification(ProxyMethods.authenticated));
  }

  /** The browserId from the hello; readable once the connection is ready. */
  get id(): string {
    if (this.browserId === undefined) throw new Error('the extension has not said hello yet');
    return this.browserId;
  }

  async send(command: CommandEnvelope, _timeoutMs?: number, folders?: ClientFolders): Promise<void> {
    this.checkOpen();
    let files: InputFile[];
    let namedOutputDir: string | undefined;
    try {
      const access = this.o.files?.forSession(command.sessionId, folders);
      files = await readInputFiles(access, command);
      namedOutputDir = await namedOutputDirFor(access, command);
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      // Refused by the file policy: the agent's answer, as a launched browser gives it.
      this.o.router.handleResponse(this.id, responseFor(command, errorResult(err.message)));
      return;
    }
    this.checkOpen();
    // What the browser saves comes back with the response, and is written under the same folders.
    if (folders !== undefined) this.callFolders.set(command.wireId, folders);
    this.write(JSON.stringify({ ...command, ...(files.length ? { files } : {}), ...(namedOutputDir !== undefined ? { namedOutputDir } : {}) }));
  }

  /** Whether the extension answers a ping within `timeoutMs` now; one that does not is dropped (heartbeat.ts). */
  answersPing(timeoutMs: number): Promise<boolean> {
    return this.state === 'ready' ? stillThere(this.o.socket, timeoutMs) : Promise.resolve(false);
  }

  private checkOpen(): void {
    if (this.state !== 'ready' || this.o.socket.readyState !== this.o.socket.OPEN) {
      // The socket is closing and the router has not heard yet: same answer as once it has.
      throw new BrowserDisconnectedError('disconnected', formatDuration(this.o.gracePeriodMs));
    }
  }

  /** A response with files the tool saved: written here first (wire-files.ts), under the folders of its call. */
  private withOutputsSaved(response: ResponseEnvelope): Promise<ResponseEnvelope> {
    const folders = this.callFolders.get(response.wireId);
    this.callFolders.delete(response.wireId);
    return withOutputsWritten(this.o.files?.forSession(response.sessionId, folders), response);
  }

  /**
   * Tells the extension a session opened: the label of its tab group (the client's name) and how its tools behave.
   * Said again for every session on a reconnect, so a browser that restarted (and forgot) gets both back.
   */
  async openSession(session: SessionRecord, options: { resumed?: boolean } = {}): Promise<void> {
    // Its owner's own directory (each key or user saves apart), so the agent is told where its files really are.
    const outputDir = await this.o.files?.forSession(session.sessionId).outputDirectory();
    const payload: SessionOpenedPayload = {
      ...(options.resumed ? { resumed: true } : {}),
      clientName: session.clientName ?? null,
      // An identity the agent cannot choose: its gateway's, or else the daemon user its token names.
      ...(session.agent !== undefined ? { agent: session.agent } : session.userId !== undefined ? { agent: `user ${session.userId}` } : {}),
      // The session's own settings (a remote client's, within the daemon's), else the daemon's.
      ...(session.settings || this.o.sessionSettings || this.o.files
        ? { settings: { ...(session.settings ?? this.o.sessionSettings), ...(outputDir !== undefined ? { outputDir } : {}) } }
        : {}),
    };
    this.notify(session.sessionId, ExtensionEvents.sessionOpened, payload);
  }

  /** Tells the extension to close the session's tabs; fire and forget, as the socket gives no answer to wait for. */
  async closeSession(sessionId: string): Promise<void> {
    this.notify(sessionId, ExtensionEvents.sessionClosed, null);
  }

  /** The router gave up on a command (cancelled, timed out): the extension stops it and frees its tab. */
  cancel(command: CommandEnvelope, reason: CancelPayload['reason']): void {
    this.callFolders.delete(command.wireId);
    const payload: CancelPayload = { wireId: command.wireId, reason };
    this.notify(command.sessionId, ExtensionEvents.cancel, payload);
  }

  close(code: number, reason: string): void {
    this.closeWith(code, reason);
  }

  private notify(sessionId: string, name: string, payload: unknown): void {
    if (this.state === 'ready') this.sendJson(createEvent({ sessionId, name, payload }));
  }

  private sendJson(message: unknown): void {
    this.write(JSON.stringify(message));
  }

  /** Sends a text frame: sealed on a paired channel, in the order of the calls. */
  private write(text: string): void {
    // ws reports a send on a closing socket through the callback; there is nobody left to tell then.
    const deliver = (frame: string) => this.o.socket.send(frame, () => undefined);
    if (this.channel) this.channel.send(text, deliver);
    else deliver(text);
  }

  private isClosed(): boolean {
    return this.state === 'closed';
  }

  private closeWith(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.o.log.info({ code, reason, browserId: this.browserId }, 'closing extension socket');
    this.o.socket.close(code, reason.slice(0, 120));
  }

  private async onMessage(frame: string): Promise<void> {
    if (this.state === 'closed') return;
    if (this.state === 'authenticating') return this.onAuthAnswer(frame);
    const text = this.channel ? await this.channel.open(frame) : frame;
    if (text === undefined) {
      // Not sealed by the paired browser at its place: something between them injected, replayed or dropped a frame.
      this.o.log.warn({ browserId: this.browserId }, 'closed an extension connection that carried a frame its paired browser did not seal');
      return this.closeWith(CloseCodes.Unauthorized, 'a frame that the paired browser did not seal: something sits between them');
    }
    // Closed while the frame was opened.
    if (this.isClosed()) return;
    const parsed = parseEnvelope(text);
    if (!parsed.ok) {
      if (this.state === 'waiting-hello') return this.closeWith(CloseCodes.BadHello, `bad hello: ${parsed.error.message}`);
      // A response we cannot read but whose wireId we can: fail that command now rather than at its timeout.
      if (parsed.wireId !== null && this.state === 'ready' && this.o.router.failCommand(this.id, parsed.wireId, parsed.error)) return;
      this.o.log.warn({ browserId: this.browserId, error: parsed.error }, 'dropped an unreadable envelope');
      return;
    }
    const envelope = parsed.envelope;
    if (this.state === 'waiting-hello') {
      if (envelope.type !== 'event' || envelope.name !== ExtensionEvents.hello) {
        return this.closeWith(CloseCodes.BadHello, 'the first message must be the hello event');
      }
      return this.onHello(envelope.payload);
    }
    if (this.state === 'proving') {
      if (envelope.type === 'event' && envelope.name === ExtensionEvents.holdProof) return this.onHoldProof(envelope.payload);
      // What the extension says meanwhile (a tab it closed while away) is heard once the browser is taken; a second
      // hello, or past the bound, is dropped.
      if (this.provingHello !== undefined && this.early.length < MAX_EARLY_FRAMES) this.early.push(envelope);
      return;
    }
    return this.onReady(envelope);
  }

  /** A frame of a connection whose browser is taken. */
  private async onReady(envelope: Envelope): Promise<void> {
    if (envelope.type === 'response') {
      this.o.router.handleResponse(this.id, await this.withOutputsSaved(envelope));
    } else if (envelope.type === 'event') {
      await this.onEvent(envelope.name, envelope.sessionId, envelope.tabId, envelope);
    } else {
      this.o.log.warn({ browserId: this.browserId, name: envelope.name }, 'extensions do not send commands; dropped');
    }
  }

  private async onEvent(name: string, sessionId: string, tabId: string | undefined, envelope: Parameters<SessionRouter['handleEvent']>[1]): Promise<void> {
    // Tab bookkeeping events keep ownership right for tabs the extension opens or the user closes.
    if (name === ExtensionEvents.tabOpened && tabId !== undefined) {
      await this.o.router.claimTab(this.id, sessionId, tabId).catch((error: unknown) => this.o.log.warn({ error, tabId }, 'tab_opened refused'));
    } else if (name === ExtensionEvents.tabClosed && tabId !== undefined) {
      await this.o.router.releaseTab(this.id, tabId).catch(() => undefined);
    } else if (name === ExtensionEvents.holdProof) {
      await this.onHoldProof(envelope.payload);
    } else if (name === ExtensionEvents.sessionStopped) {
      const stop = parseSessionStopped(envelope.payload ?? null);
      if (!stop.ok) return this.o.log.warn({ browserId: this.browserId, sessionId, problem: stop.message }, 'session_stopped with a bad payload; dropped');
      const via = stop.value?.via ?? 'popup';
      if (await this.o.router.stopSession(this.id, sessionId, via).catch(() => false)) {
        this.o.log.info(
          { browserId: this.browserId, sessionId, via },
          via === 'popup' ? 'session stopped by the person (Stop in the popup)' : "session stopped by the person (Cancel on Chrome's debugging bar)",
        );
      }
    } else {
      await this.o.router.handleEvent(this.id, envelope);
    }
  }

  private async onAuthAnswer(text: string): Promise<void> {
    const message = parseMessage(text);
    if (!message.ok || message.kind !== 'response' || message.message.id !== this.authRequestId) {
      return this.closeWith(CloseCodes.Unauthorized, 'answer the authenticate request first');
    }
    const response = message.message;
    if ('error' in response && response.error) return this.closeWith(CloseCodes.Unauthorized, `authenticate failed: ${response.error.message}`);
    const result = parseProxyResult(ProxyMethods.authenticate, response.result);
    if (!result.ok) return this.closeWith(CloseCodes.Unauthorized, result.error.message);
    let daemonProof: string | undefined;
    let channel: SealedChannel | undefined;
    // Pairing is required where no token says who the extension is; beside a token it is optional (a hosted relay's
    // extension over wss:// has none), but a proof given must hold.
    const answer = result.value.pairing;
    if (this.o.pairingSecret && this.pairingNonce && (answer !== undefined || !this.o.verifier)) {
      const checked = await checkPairing(this.o.pairingSecret, this.pairingNonce, answer, this.o.port, this.o.log);
      if ('refusal' in checked) return this.closeWith(CloseCodes.Unauthorized, checked.refusal);
      ({ daemonProof, channel } = checked);
    }
    if (this.o.verifier) {
      try {
        const { userId } = await this.o.verifier.verify(result.value.accessToken ?? '');
        this.userId = userId;
        // A hosted daemon lists browsers by the name their extension gives; a local one by the browser's own.
        this.authName = result.value.name;
      } catch (error) {
        return this.closeWith(CloseCodes.Unauthorized, (error as Error).message);
      }
    }
    if (this.state !== 'authenticating') return;
    this.state = 'waiting-hello';
    this.sendJson(jsonRpcNotification(ProxyMethods.authenticated, daemonProof ? { pairing: { proof: daemonProof } } : undefined));
    // From the next frame on, both ways: sealed.
    this.channel = channel;
  }

  private async onHello(payload: unknown): Promise<void> {
    const hello = parseHello(payload);
    if (typeof hello === 'string') return this.closeWith(CloseCodes.BadHello, hello);
    // No longer waiting for a hello (a second one, read while this one is checked, is not another hello).
    this.state = 'proving';
    const refusal = helloRefusal(hello, this.o.holdProofsFor !== undefined);
    if (refusal !== undefined) return this.closeWith(CloseCodes.BadHello, refusal);
    if (this.o.holdProofsFor === undefined || hello.key === undefined) return this.take(hello);
    // In a cluster the browser first signs that this instance holds it: the entry the cluster's directory then
    // carries is believed by the other instances only with that proof.
    this.provingHello = hello;
    const ask = (payload: unknown) => this.sendJson(createEvent({ sessionId: 'hold', name: ExtensionEvents.proveHold, payload }));
    this.prover = new HoldProver(hello.browserId, hello.key, this.o.holdProofsFor, this.userId, ask, this.o.holdProofRenewMs);
    this.prover.ask();
  }

  /** The browser's proof: kept (and told to the cluster) when its key signed what was asked; else the connection ends. */
  private async onHoldProof(payload: unknown): Promise<void> {
    const prover = this.prover;
    if (prover === undefined) return;
    const proof = prover.accept(payload);
    // A renewal's answer that came after a later one: signed, but not news.
    if (proof === undefined) return;
    if (typeof proof === 'string') {
      this.o.log.warn({ browserId: this.provingHello?.browserId ?? this.browserId, problem: proof }, 'a bad hold proof');
      return this.closeWith(CloseCodes.BadHello, "a hold proof that is not what was asked, signed by this browser's key");
    }
    const hello = this.provingHello;
    if (hello !== undefined) {
      this.provingHello = undefined;
      await this.take(hello);
      if (this.state !== 'ready') return;
      prover.renew((why) => this.closeWith(CloseCodes.BadHello, why));
      for (const envelope of this.early.splice(0)) await this.onReady(envelope);
      return;
    }
    const record = this.browserId === undefined ? undefined : this.o.registry.records.get(this.browserId);
    if (record?.connection !== this || prover.latest !== proof) return;
    record.hold = proof;
    this.o.registry.proven?.(record.id);
  }

  /** The browser is this connection's: its record, its sessions back, and the old socket of it replaced. */
  private async take(hello: HelloPayload): Promise<void> {
    const { registry, router } = this.o;
    const existing = registry.records.get(hello.browserId);
    const elsewhere = registry.ownerElsewhere?.(hello.browserId);
    if ((existing && existing.userId !== this.userId) || (elsewhere !== undefined && elsewhere !== this.userId)) {
      return this.closeWith(CloseCodes.Forbidden, `browser ${hello.browserId} belongs to another user`);
    }
    clearTimeout(this.helloTimer);
    this.browserId = hello.browserId;
    this.state = 'ready';
    const previous = existing?.connection;
    const record: ExtensionRecord = existing ?? {
      id: hello.browserId,
      name: '',
      browser: '',
      version: '',
      userId: this.userId,
      connection: null,
      paused: false,
    };
    registry.expiries.clear(hello.browserId);
    record.name = this.authName ?? hello.browser;
    record.browser = hello.browser;
    record.version = hello.version;
    record.connection = this;
    record.paused = false;
    record.hold = this.prover?.latest;
    registry.records.set(hello.browserId, record);
    registry.taken?.(hello.browserId);
    const { orphanedTabs, sessions } = await router.executorConnected(this, hello.tabs);
    // The old socket of the same browser lost the race; its late close must not disconnect this one.
    previous?.close(CloseCodes.Replaced, 'replaced by a newer connection of the same browser');
    this.o.log.info({ browserId: hello.browserId, browser: hello.browser, version: hello.version, tabs: hello.tabs.length }, 'extension connected');
    for (const tab of orphanedTabs) this.notify(tab.sessionId, ExtensionEvents.sessionClosed, { tabId: tab.tabId });
    for (const session of sessions) await this.openSession(session, { resumed: true });
    registry.emit(hello.browserId, 'connected');
  }

  private onClose(code: number): void {
    const wasReady = this.state === 'ready';
    this.state = 'closed';
    clearTimeout(this.helloTimer);
    this.prover?.stop();
    if (!wasReady || this.browserId === undefined) return;
    const { registry, router, gracePeriodMs } = this.o;
    const record = registry.records.get(this.browserId);
    if (record && record.connection !== this) return; // replaced by a newer socket
    // The router hears of it even when the registry is already cleared (the app is closing): its sessions wait out
    // the grace period for the browser to come back, possibly to another app on the same router.
    const paused = code === ExtensionCloseCodes.Paused;
    router.executorDisconnected(this, { paused });
    if (!record) return;
    record.connection = null;
    record.paused = paused;
    this.o.log.info(
      { browserId: this.browserId, code },
      paused ? 'extension paused by the person; waiting for Connect' : 'extension disconnected; waiting for it to reconnect',
    );
    const id = this.browserId;
    registry.expiries.set(id, gracePeriodMs, () => {
      if (registry.records.get(id) !== record || record.connection) return;
      registry.records.delete(id);
      registry.emit(id, 'gone');
    });
    registry.emit(id, 'reconnecting');
  }
}
