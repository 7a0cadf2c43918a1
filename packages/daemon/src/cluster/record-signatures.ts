import { createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { SessionRecord } from '../router/store.js';

/**
 * Session records signed by the instance they name as their server. The router's bucket is every daemon's to write,
 * so a record is believed, where another instance acts on it (the browser that runs the session's commands), only
 * with the signature of the instance in its `servedBy`: whose public key that instance publishes in its own directory
 * entry, which NATS lets no other daemon write. Another daemon's credentials then cannot change what a session served
 * elsewhere is (its user, agent, browser, settings) or put it on another instance's name.
 */

/**
 * What a record's signature (and its user proof, user-proofs.ts) covers: everything but the current tab, which the
 * browser's instance also writes, and the signature and proof themselves.
 */
export function claimsOf(record: SignedRecord): string {
  const { currentTabId: _tab, signature: _signature, userProof: _proof, ...claims } = record;
  // The signer signs an object, the verifier reads JSON.
  return canonicalAsRead(claims);
}

/** The canonical JSON of `value` as JSON reads it back (undefined dropped or null, -0 as 0). */
export function canonicalAsRead(value: unknown): string {
  return canonicalJson(JSON.parse(JSON.stringify(value)));
}

/** JSON with object keys sorted at every level: the same bytes for the same record, whoever wrote it. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A record as the store keeps it: the record, its server's proof of its user (user-proofs.ts) and its signature. */
export interface SignedRecord extends SessionRecord {
  readonly userProof?: string;
  /** Its private part (user, agent, client, account, settings), sealed (sealed-records.ts), in place of those fields. */
  readonly sealed?: string;
  readonly signature?: string;
}

/** This instance's signing key, made when it starts (never written anywhere): its public half goes in its directory entry. */
export class RecordSigner {
  readonly #privateKey: KeyObject;
  /** The raw Ed25519 public key, base64url. */
  readonly publicKey: string;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    this.#privateKey = privateKey;
    this.publicKey = rawPublicKey(publicKey);
  }

  sign(record: SignedRecord): SignedRecord {
    const { signature: _old, ...unsigned } = record;
    return { ...unsigned, signature: sign(null, Buffer.from(claimsOf(unsigned)), this.#privateKey).toString('base64url') };
  }
}

/** Public keys as Node reads them, by their text: a record is verified on every command that crosses instances. */
const keyObjects = new Map<string, KeyObject>();
const MAX_KEY_OBJECTS = 256;

function keyObject(publicKey: string): KeyObject {
  let key = keyObjects.get(publicKey);
  if (key === undefined) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey }, format: 'jwk' });
    keyObjects.set(publicKey, key);
    if (keyObjects.size > MAX_KEY_OBJECTS) keyObjects.delete(keyObjects.keys().next().value!);
  }
  return key;
}

/** Whether `record` carries a signature that the key `publicKey` (raw, base64url) made over its claims. */
export function signedBy(record: SignedRecord, publicKey: string): boolean {
  const { signature, ...unsigned } = record;
  if (signature === undefined) return false;
  try {
    return verify(null, Buffer.from(claimsOf(unsigned)), keyObject(publicKey), Buffer.from(signature, 'base64url'));
  } catch {
    return false; // not a key, or not a signature
  }
}

/** The record without its signature, user proof and sealed part. */
export function unsigned(record: SignedRecord): SessionRecord {
  const { signature: _signature, userProof: _proof, sealed: _sealed, ...rest } = record;
  return rest;
}

function rawPublicKey(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new Error('an Ed25519 public key without its x');
  return jwk.x;
}
