import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import {
  BROWSER_KEY_BYTES,
  browserKeySchema,
  HOLD_PROOF_AWAY_MS,
  HOLD_PROOF_CLOCK_SKEW_MS,
  HOLD_PROOF_CONNECTED_MS,
  holdStatement,
  type HoldProof,
} from '@browsermcp/protocol';

/** Public keys by their text: a browser's entry is checked again at every rewrite (each renewal, each heartbeat). */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 10_000;

function publicKey(key: string): KeyObject | undefined {
  let found = keys.get(key);
  if (found !== undefined) return found;
  try {
    found = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key }, format: 'jwk' });
  } catch {
    return undefined;
  }
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
  keys.set(key, found);
  return found;
}

/**
 * The browser id of a public key as the hello carries it (the protocol's browserIdOfKey, which the extension runs on
 * Web Crypto), synchronously with Node's: undefined when it is not 32 bytes.
 */
export function browserIdOf(key: string): string | undefined {
  if (!browserKeySchema.safeParse(key).success) return undefined;
  const raw = Buffer.from(key, 'base64url');
  return raw.byteLength === BROWSER_KEY_BYTES ? createHash('sha256').update(raw).digest('base64url') : undefined;
}

/**
 * Whether `proof` is the browser's own word that `instanceId` held `browserId` at `proof.at` for `user` (browser-key.ts
 * in the protocol): its key hashes to the browser's id and signs that statement. Node's crypto, synchronously, where
 * the extension uses Web Crypto (the directory reads entries in a synchronous step).
 */
export function isHoldProof(browserId: string, instanceId: string, user: string | null, proof: HoldProof | undefined): boolean {
  if (proof === undefined) return false;
  if (browserIdOf(proof.key) !== browserId) return false;
  const key = publicKey(proof.key);
  if (key === undefined) return false;
  try {
    return verify(null, holdStatement(browserId, instanceId, proof.at, user), key, Buffer.from(proof.sig, 'base64url'));
  } catch {
    return false;
  }
}

/**
 * How much older than the newest proof seen for a browser another proof may be and still count: what the clocks of
 * one cluster's machines (kept by NTP) differ by. An older one is from an instance the browser left since.
 */
export const HOLD_ORDER_SLACK_MS = 2_000;

/** Whether a proof made at `at` still counts now: for a browser its entry says is connected, or one it says is away. */
export function holdProofFresh(at: number, connected: boolean, now = Date.now()): boolean {
  if (at > now + HOLD_PROOF_CLOCK_SKEW_MS) return false;
  return now - at <= (connected ? HOLD_PROOF_CONNECTED_MS : HOLD_PROOF_AWAY_MS);
}
