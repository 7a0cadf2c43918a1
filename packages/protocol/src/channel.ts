// The paired channel: once both ends have proven the pairing secret (pairing.ts), every frame between the extension
// and its daemon is sealed with AES-GCM under keys only the two can derive (HKDF from the secret, both connection
// nonces and the address the extension dialled), one key a direction. A frame's IV is its number in its direction,
// which the receiver counts itself: a relay between them reads nothing, and a frame it injects, replays, reorders or
// drops fails to open, which ends the connection. Web Crypto only, so the daemon (Node) and the extension (an MV3
// worker) share this code.
import { fromBase64Url, toBase64Url } from './base64url';
import { PAIRING_CODE_PREFIX, type PairingNonces, type PairingRole } from './pairing';

/** How a sealed frame travels: a JSON text frame with one field, the ciphertext (with its tag) in base64url. */
export interface SealedFrame {
  sealed: string;
}

const encoder = new TextEncoder();

/** The IV of frame `n`: 4 zero bytes, then n as 8 bytes big-endian. */
function ivOf(n: bigint): Uint8Array<ArrayBuffer> {
  const iv = new Uint8Array(12);
  new DataView(iv.buffer).setBigUint64(4, n);
  return iv;
}

async function directionKey(secret: Uint8Array, nonces: PairingNonces, from: PairingRole, usage: 'encrypt' | 'decrypt'): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey('raw', secret as Uint8Array<ArrayBuffer>, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    {
      name: 'HKDF',
      hash: 'SHA-256',
      salt: encoder.encode(`${nonces.daemon} ${nonces.extension}`),
      info: encoder.encode(`${PAIRING_CODE_PREFIX} channel from ${from} ${nonces.address}`),
    },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    [usage],
  );
}

/** One end of a paired connection's sealed frames: seals what it sends, opens what it receives, each in order. */
export class SealedChannel {
  #sent = 0n;
  #received = 0n;
  /** Sealing is asynchronous: frames are delivered one after another, in the order `send` was called. */
  #sending: Promise<unknown> = Promise.resolve();
  /** Opening is asynchronous: frames are opened one after another, in the order they arrived. */
  #opening: Promise<unknown> = Promise.resolve();
  /** Once a frame failed to open, the channel opens nothing more (the connection is to be ended). */
  #broken = false;

  private constructor(
    private readonly sendKey: CryptoKey,
    private readonly receiveKey: CryptoKey,
  ) {}

  /** The channel of `role`'s end, for this connection's nonces and the address the extension dialled. */
  static async create(secret: Uint8Array, nonces: PairingNonces, role: PairingRole): Promise<SealedChannel> {
    const other: PairingRole = role === 'daemon' ? 'extension' : 'daemon';
    const [send, receive] = await Promise.all([directionKey(secret, nonces, role, 'encrypt'), directionKey(secret, nonces, other, 'decrypt')]);
    return new SealedChannel(send, receive);
  }

  /**
   * The frame to send for `text`. Frames are numbered when this is called: send them in the order of the calls
   * (await each before the next send, or chain them).
   */
  async seal(text: string): Promise<string> {
    const n = this.#sent++;
    const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv: ivOf(n) }, this.sendKey, encoder.encode(text));
    return JSON.stringify({ sealed: toBase64Url(new Uint8Array(sealed)) } satisfies SealedFrame);
  }

  /** Seals `text` and hands its frame to `deliver` once every frame sent before it was handed over. */
  send(text: string, deliver: (frame: string) => void): void {
    const frame = this.seal(text);
    this.#sending = this.#sending.then(() => frame.then(deliver)).catch(() => undefined);
  }

  /**
   * The text of a received frame, opened in the order `open` was called; undefined for a frame that is not sealed
   * for this channel at its place (injected, replayed, reordered, tampered), after which nothing opens.
   */
  open(frame: string): Promise<string | undefined> {
    const opened = this.#opening.then(() => this.#openNext(frame));
    this.#opening = opened;
    return opened;
  }

  async #openNext(frame: string): Promise<string | undefined> {
    if (this.#broken) return undefined;
    const n = this.#received++;
    try {
      const parsed: unknown = JSON.parse(frame);
      const data =
        typeof parsed === 'object' && parsed !== null && typeof (parsed as SealedFrame).sealed === 'string'
          ? fromBase64Url((parsed as SealedFrame).sealed)
          : undefined;
      if (!data) throw new Error('not a sealed frame');
      return new TextDecoder('utf-8', { fatal: true }).decode(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: ivOf(n) }, this.receiveKey, data));
    } catch {
      this.#broken = true;
      return undefined;
    }
  }
}
