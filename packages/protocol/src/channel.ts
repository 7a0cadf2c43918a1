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

/**
 * AES-256-GCM for the channel's frames, the tag after the ciphertext (as Web Crypto gives it). Web Crypto by default;
 * the daemon passes Node's own, which does a frame in a few microseconds where Web Crypto's round trip through
 * Node's thread pool takes ~50 (every command and its answer are sealed and opened once each way).
 */
export interface FrameCipher {
  /** A direction's key from its 32 derived bytes. */
  key(raw: Uint8Array): Promise<unknown>;
  encrypt(key: unknown, iv: Uint8Array, data: Uint8Array): Promise<Uint8Array> | Uint8Array;
  /** Throws when the frame is not sealed with `key` at `iv`. */
  decrypt(key: unknown, iv: Uint8Array, data: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

/** Web Crypto's AES-GCM: the extension's (an MV3 worker has nothing else). */
export const webFrameCipher: FrameCipher = {
  key: (raw) => crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt', 'decrypt']),
  encrypt: async (key, iv, data) =>
    new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: iv as Uint8Array<ArrayBuffer> }, key as CryptoKey, data as Uint8Array<ArrayBuffer>)),
  decrypt: async (key, iv, data) =>
    new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: iv as Uint8Array<ArrayBuffer> }, key as CryptoKey, data as Uint8Array<ArrayBuffer>)),
};

/** The 32 bytes of one direction's key: HKDF-SHA-256 of the secret, salted with both nonces, for `from` and the address. */
async function directionKeyBytes(secret: Uint8Array, nonces: PairingNonces, from: PairingRole): Promise<Uint8Array> {
  const base = await crypto.subtle.importKey('raw', secret as Uint8Array<ArrayBuffer>, 'HKDF', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    {
      name: 'HKDF',
      hash: 'SHA-256',
      salt: encoder.encode(`${nonces.daemon} ${nonces.extension}`),
      info: encoder.encode(`${PAIRING_CODE_PREFIX} channel from ${from} ${nonces.address}`),
    },
    base,
    256,
  );
  return new Uint8Array(bits);
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
    private readonly cipher: FrameCipher,
    private readonly sendKey: unknown,
    private readonly receiveKey: unknown,
  ) {}

  /** The channel of `role`'s end, for this connection's nonces and the address the extension dialled. */
  static async create(secret: Uint8Array, nonces: PairingNonces, role: PairingRole, cipher: FrameCipher = webFrameCipher): Promise<SealedChannel> {
    const other: PairingRole = role === 'daemon' ? 'extension' : 'daemon';
    const [send, receive] = await Promise.all([directionKeyBytes(secret, nonces, role), directionKeyBytes(secret, nonces, other)]);
    return new SealedChannel(cipher, await cipher.key(send), await cipher.key(receive));
  }

  /**
   * The frame to send for `text`. Frames are numbered when this is called: send them in the order of the calls
   * (await each before the next send, or chain them).
   */
  async seal(text: string): Promise<string> {
    const n = this.#sent++;
    const sealed = await this.cipher.encrypt(this.sendKey, ivOf(n), encoder.encode(text));
    return JSON.stringify({ sealed: toBase64Url(sealed) } satisfies SealedFrame);
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
      return new TextDecoder('utf-8', { fatal: true }).decode(await this.cipher.decrypt(this.receiveKey, ivOf(n), data));
    } catch {
      this.#broken = true;
      return undefined;
    }
  }
}
