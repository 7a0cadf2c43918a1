import {
  ExtensionCloseCodes,
  ExtensionEvents,
  parseEnvelope,
  parseMessage,
  parseProxyParams,
  ProxyMethods,
  isPairingProof,
  newPairingNonce,
  pairingProof,
  SealedChannel,
  type CommandEnvelope,
  type Envelope,
  type EventEnvelope,
  type HelloPayload,
  type JsonRpcId,
  type PairingNonces,
} from '@browsermcp/protocol';
import { checkDaemonUrl, needsPairing, type Settings } from './settings.js';

export type ConnectionState = 'connecting' | 'connected' | 'error' | 'disconnected';

export interface ConnectionStatus {
  state: ConnectionState;
  url: string;
  /** Why the last attempt failed, for the popup. */
  error: string | undefined;
  /** The pairing itself failed (a code with another secret, a program that cannot prove it): the popup pairs again. */
  pairingRefused?: boolean;
}

export interface ConnectionHandlers {
  /** The hello payload: which browser this is and the tabs it holds for sessions (asked anew on each connect). */
  hello(): Promise<HelloPayload>;
  command(command: CommandEnvelope): void;
  /** `reply` answers on the connection the event came on (never on a newer one: its daemon did not ask). */
  event(event: EventEnvelope, reply: (envelope: Envelope) => void): void;
  status(status: ConnectionStatus): void;
}

const BACKOFF_MS = [500, 1000, 2000, 5000, 10_000, 30_000];
// MV3 stops an idle worker after 30 s; WebSocket traffic counts as activity, so talk at least every 20 s.
const KEEPALIVE_MS = 20_000;

/** Close codes the daemon uses on purpose: no point retrying these until the user changes something. */
const FATAL_CLOSE: Record<number, string> = {
  [ExtensionCloseCodes.Unauthorized]:
    'The daemon refused this browser (its pairing or access token). Paste the pairing code browsermcp printed into this popup, or set the token in the options page.',
  [ExtensionCloseCodes.Forbidden]: 'This browser is registered to another user on the daemon.',
};

/**
 * The one WebSocket to the daemon: connects, answers `authenticate`, says hello, reconnects with backoff, and keeps
 * the worker alive while connected.
 */
export class DaemonConnection {
  private ws: WebSocket | undefined;
  /** After a pairing: the sealed channel of `ws` (protocol's channel.ts). */
  private channel: SealedChannel | undefined;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private wanted = false;
  private current: ConnectionStatus;

  constructor(
    private settings: Settings,
    private readonly handlers: ConnectionHandlers,
  ) {
    this.current = { state: 'disconnected', url: settings.daemonUrl, error: undefined };
  }

  get status(): ConnectionStatus {
    return this.current;
  }

  private setStatus(state: ConnectionState, error?: string, pairingRefused = false): void {
    this.current = { state, url: this.settings.daemonUrl, error, ...(pairingRefused ? { pairingRefused } : {}) };
    this.handlers.status(this.current);
  }

  /** Connects (again) with these settings, unless already connected with them. */
  start(settings: Settings = this.settings): void {
    const changed =
      settings.daemonUrl !== this.settings.daemonUrl ||
      settings.accessToken !== this.settings.accessToken ||
      !sameBytes(settings.pairingSecret, this.settings.pairingSecret);
    this.settings = settings;
    this.wanted = true;
    if (!changed && this.ws && this.ws.readyState <= WebSocket.OPEN) return;
    this.teardown();
    this.attempt = 0;
    this.open();
  }

  /**
   * The popup's Disconnect button (or Cancel on Chrome's debugging bar, `why` then says so in the popup): closes and
   * stays closed until start() is called again. The daemon hears that the person paused it, and tells agents so.
   */
  stop(why?: string): void {
    this.wanted = false;
    this.teardown(ExtensionCloseCodes.Paused, 'paused by the person');
    this.setStatus('disconnected', why);
  }

  send(envelope: Envelope): void {
    if (this.ws) this.write(this.ws, JSON.stringify(envelope));
  }

  /** Sends a text frame on `ws`: sealed once paired, in the order of the calls. */
  private write(ws: WebSocket, text: string): void {
    // Not on a connection that is gone: sealing for it would spend a frame number of the connection now open.
    if (this.ws !== ws) return;
    const deliver = (frame: string) => {
      if (this.ws === ws && ws.readyState === WebSocket.OPEN) ws.send(frame);
    };
    if (this.channel) this.channel.send(text, deliver);
    else deliver(text);
  }

  private teardown(code = 1000, reason = 'reconnecting'): void {
    clearTimeout(this.retryTimer);
    clearInterval(this.keepAlive);
    const ws = this.ws;
    this.ws = undefined;
    this.channel = undefined;
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(code, reason);
  }

  private open(): void {
    const problem = checkDaemonUrl(this.settings.daemonUrl);
    if (problem) {
      this.setStatus('error', `${this.settings.daemonUrl}: ${problem}`);
      return;
    }
    this.setStatus('connecting', this.current.error);
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.settings.daemonUrl);
    } catch (err) {
      this.setStatus('error', (err as Error).message);
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    this.channel = undefined;
    let helloSent = false;
    const sayHello = async () => {
      if (helloSent || this.ws !== ws) return;
      helloSent = true;
      const hello = await this.handlers.hello();
      if (this.ws !== ws) return;
      this.write(ws, JSON.stringify({ wireId: crypto.randomUUID(), sessionId: 'hello', type: 'event', name: ExtensionEvents.hello, payload: hello }));
      this.attempt = 0;
      this.setStatus('connected');
      this.keepAlive = setInterval(
        () => this.send({ wireId: crypto.randomUUID(), sessionId: 'keepalive', type: 'event', name: ExtensionEvents.keepalive, payload: null }),
        KEEPALIVE_MS,
      );
    };
    // Refuses this daemon for good (until the person changes something): nothing more is said or taken from it.
    // `pairing`: the pairing itself failed (a proof that does not match), not its absence: the popup asks again.
    const refuse = (why: string, pairing = false) => {
      if (this.ws !== ws) return;
      this.wanted = false;
      this.teardown(1000, 'not paired');
      this.setStatus('error', why, pairing);
    };
    // The nonces of this connection's pairing proofs, once the daemon asked for them.
    let nonces: PairingNonces | undefined;
    // Until the daemon has proven it holds the pairing secret (or, for wss://, TLS and the token vouch for it), this
    // browser sends no hello and runs nothing: a program squatting on the daemon's port would otherwise drive it.
    let trusted = !needsPairing(this.settings.daemonUrl);
    const secret = this.settings.pairingSecret;
    const unpaired = `This browser is not paired with browsermcp at ${this.settings.daemonUrl}: paste the pairing code browsermcp printed when it started (bmcp-pair-1.…) into this popup, and press Pair.`;
    const unasked = `The program at ${this.settings.daemonUrl} did not ask this browser to pair, so it is not the browsermcp you paired with. Stop it, or start browsermcp-gateway --extension there.`;
    const answer = (id: JsonRpcId, pairing?: { nonce: string; proof: string; address: string }) =>
      ws.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: { name: 'browsermcp extension', accessToken: this.settings.accessToken, ...(pairing ? { pairing } : {}) },
        }),
      );
    // Once paired, the channel that opens the daemon's frames (in the order they came).
    let sealed: SealedChannel | undefined;
    const handle = (text: string) => {
      const parsed = parseEnvelope(text);
      if (!parsed.ok) return;
      const envelope = parsed.envelope;
      if (envelope.type === 'command') this.handlers.command(envelope);
      else if (envelope.type === 'event') this.handlers.event(envelope, (answer) => this.write(ws, JSON.stringify(answer)));
    };
    // The daemon speaks first: `authenticate` (answered with the token and the pairing proof) or `authenticated`.
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      const text = typeof event.data === 'string' ? event.data : '';
      if (sealed) {
        void sealed.open(text).then((opened) => {
          if (this.ws !== ws) return;
          if (opened !== undefined) return handle(opened);
          // Not sealed by the daemon at its place: something sits between them. Drop the connection, try again.
          this.teardown(1000, 'a frame the daemon did not seal');
          this.setStatus(
            'error',
            `A frame from ${this.settings.daemonUrl} was not sealed by the browsermcp you paired with: something sits between them. Reconnecting…`,
          );
          this.scheduleRetry();
        });
        return;
      }
      const rpc = parseMessage(text);
      if (rpc.ok && rpc.kind === 'request' && rpc.message.method === ProxyMethods.authenticate) {
        const id = rpc.message.id;
        const asked = parseProxyParams(ProxyMethods.authenticate, rpc.message.params);
        const daemonNonce = asked.ok ? asked.value?.pairing?.nonce : undefined;
        // No pairing asked (a wss:// daemon), or none this browser can give there (a relay behind TLS): the token alone.
        if (daemonNonce === undefined || !secret) return trusted ? answer(id) : refuse(daemonNonce === undefined ? unasked : unpaired);
        // Proven for the address dialled: the daemon refuses a proof relayed to it from another.
        const ours = { daemon: daemonNonce, extension: newPairingNonce(), address: this.settings.daemonUrl };
        nonces = ours;
        void pairingProof(secret, 'extension', ours).then((proof) => {
          if (this.ws === ws) answer(id, { nonce: ours.extension, proof, address: ours.address });
        });
        return;
      }
      if (rpc.ok && rpc.kind === 'notification' && rpc.message.method === ProxyMethods.authenticated) {
        if (trusted && !nonces) return void sayHello();
        if (!nonces || !secret) return refuse(secret ? unasked : unpaired);
        const said = parseProxyParams(ProxyMethods.authenticated, rpc.message.params);
        const proof = said.ok ? said.value?.pairing?.proof : undefined;
        const proven = nonces;
        void isPairingProof(secret, 'daemon', proven, proof).then(async (ok) => {
          if (!ok)
            return refuse(
              `The program at ${this.settings.daemonUrl} could not prove it is the browsermcp you paired with. If browsermcp printed a new pairing code, paste it here; otherwise stop that program.`,
              true,
            );
          // Every frame from here on, both ways, is sealed for this connection.
          const channel = await SealedChannel.create(secret, proven, 'extension');
          if (this.ws !== ws) return;
          this.channel = channel;
          sealed = channel;
          trusted = true;
          void sayHello();
        });
        return;
      }
      // Nothing from a daemon that has not proven itself is acted on.
      if (!trusted) return;
      handle(text);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      clearInterval(this.keepAlive);
      this.ws = undefined;
      if (!this.wanted) return;
      const fatal = FATAL_CLOSE[event.code];
      if (fatal) {
        // Refused after this browser gave its pairing proof: the daemon holds another secret (a wrong or old code).
        const pairing = event.code === ExtensionCloseCodes.Unauthorized && nonces !== undefined;
        const why = pairing
          ? `browsermcp at ${this.settings.daemonUrl} did not accept this pairing code: it was made for another start of browsermcp, or mistyped. Paste the code browsermcp printed when it last started, and press Pair.`
          : fatal;
        this.setStatus('error', event.reason && !pairing ? `${fatal} (The daemon said: ${event.reason}.)` : why, pairing);
        return;
      }
      const reason =
        event.reason ||
        (helloSent
          ? 'the connection closed'
          : `cannot reach browsermcp at ${this.settings.daemonUrl}: start it with \`browsermcp-gateway --extension\` (or a browsermcp-daemon)`);
      this.setStatus('error', reason);
      this.scheduleRetry();
    };
  }

  private scheduleRetry(): void {
    if (!this.wanted) return;
    const delay = BACKOFF_MS[Math.min(this.attempt++, BACKOFF_MS.length - 1)]!;
    this.retryTimer = setTimeout(() => this.open(), delay);
  }
}

/** Two secrets (or none) hold the same bytes: settings read anew hold a new copy of the same secret. */
function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
