// Pairing the extension with its daemon: a secret the person carries once from the gateway's (or daemon's) banner to
// the extension's popup, as one code that also says where the daemon is. Each connection then proves, both ways,
// that the other side holds it (HMAC over both sides' fresh nonces, so the secret never crosses the wire): a process
// posing as the extension gets nothing, and one squatting on the daemon's port drives nothing. Web Crypto only, so the
// daemon (Node) and the extension (an MV3 worker) share this code.
import { fromBase64Url, toBase64Url } from './base64url';
import type { Validated } from './validate';

/** How every pairing code starts (the version of this format). */
export const PAIRING_CODE_PREFIX = 'bmcp-pair-1';

const SECRET_BYTES = 32;
const NONCE_BYTES = 16;

export interface Pairing {
  /** The daemon's extension endpoint, e.g. ws://127.0.0.1:8765/extension. */
  url: string;
  /** The shared secret (32 random bytes). */
  secret: Uint8Array;
}

/** A fresh pairing secret. */
export function newPairingSecret(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
}

/** The secret as text, for the file that keeps it. */
export function encodePairingSecret(secret: Uint8Array): string {
  return toBase64Url(secret);
}

/** The secret from its file's text, or why that text is not one. */
export function decodePairingSecret(text: string): Validated<Uint8Array> {
  const secret = fromBase64Url(text.trim());
  if (!secret || secret.byteLength !== SECRET_BYTES) return { ok: false, message: `a pairing secret is ${SECRET_BYTES} bytes in base64url (43 characters)` };
  return { ok: true, value: secret };
}

/** The code the person pastes into the extension: `bmcp-pair-1.<secret>.<daemon URL>`, all base64url. */
export function formatPairingCode(pairing: Pairing): string {
  return `${PAIRING_CODE_PREFIX}.${toBase64Url(pairing.secret)}.${toBase64Url(new TextEncoder().encode(pairing.url))}`;
}

/** Reads a pasted pairing code (surrounding spaces and quotes allowed), or says what is wrong with it. */
export function parsePairingCode(text: string): Validated<Pairing> {
  const code = text.trim().replace(/^["'`]+|["'`]+$/g, '');
  const wrong = (why: string): Validated<Pairing> => ({
    ok: false,
    message: `${why}: copy the whole pairing code browsermcp printed when it started (one word beginning with ${PAIRING_CODE_PREFIX}.)`,
  });
  const parts = code.split('.');
  if (parts[0] !== PAIRING_CODE_PREFIX) return wrong('This is not a pairing code');
  if (parts.length !== 3) return wrong('This pairing code is cut short or has extra parts');
  const secret = fromBase64Url(parts[1]!);
  if (!secret || secret.byteLength !== SECRET_BYTES) return wrong("This pairing code's secret is damaged");
  const urlBytes = fromBase64Url(parts[2]!);
  let url: string;
  try {
    url = new TextDecoder('utf-8', { fatal: true }).decode(urlBytes);
    const parsed = new URL(url);
    if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') throw new Error('not a WebSocket URL');
  } catch {
    return wrong("This pairing code's daemon address is damaged");
  }
  return { ok: true, value: { url, secret } };
}

/** A fresh nonce for one connection's proofs. */
export function newPairingNonce(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
}

/**
 * Both sides' nonces of one connection, and the address the extension dialled: a proof (and the channel's keys,
 * channel.ts) holds for that address only, so a program the extension dialled instead cannot relay the handshake to
 * the real daemon at another.
 */
export interface PairingNonces {
  daemon: string;
  extension: string;
  address: string;
}

/** Which side proves: each signs a different message, so neither proof can be replayed as the other. */
export type PairingRole = 'daemon' | 'extension';

function hmacKey(secret: Uint8Array, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', secret as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

function proofMessage(role: PairingRole, nonces: PairingNonces): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`${PAIRING_CODE_PREFIX} ${role} ${nonces.daemon} ${nonces.extension} ${nonces.address}`);
}

/** `role`'s proof that it holds the secret, for this connection's nonces. */
export async function pairingProof(secret: Uint8Array, role: PairingRole, nonces: PairingNonces): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', await hmacKey(secret, 'sign'), proofMessage(role, nonces));
  return toBase64Url(new Uint8Array(mac));
}

/** Whether `proof` is `role`'s proof for these nonces (compared in constant time by Web Crypto). */
export async function isPairingProof(secret: Uint8Array, role: PairingRole, nonces: PairingNonces, proof: unknown): Promise<boolean> {
  if (typeof proof !== 'string') return false;
  const mac = fromBase64Url(proof);
  if (!mac) return false;
  return crypto.subtle.verify('HMAC', await hmacKey(secret, 'verify'), mac as Uint8Array<ArrayBuffer>, proofMessage(role, nonces));
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Why `address` (the one the extension says it dialled) is not this daemon's extension endpoint on `port`, or
 * undefined when it is: ws:// on a loopback name, this port, /extension.
 */
export function pairingAddressProblem(address: string, port: number): string | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return `"${address}" is not an address`;
  }
  if (url.protocol !== 'ws:' || !LOOPBACK_HOSTS.has(url.hostname) || url.pathname !== '/extension')
    return `${address} is not a loopback ws://…/extension address`;
  if (Number(url.port || 80) !== port)
    return `the extension dialled ${address}, and this browsermcp listens on port ${port}: something else took the address it dialled`;
  return undefined;
}
