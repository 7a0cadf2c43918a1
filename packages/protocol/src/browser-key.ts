// A browser's own key: the extension makes an Ed25519 key pair once (its private half never leaves the browser) and
// its browser id is the hash of the public half, so no one else can speak for that id. In a cluster the daemon the
// browser connects to asks it to sign that it holds the browser at an instant (a hold proof); the other daemons
// believe a directory entry naming a browser only with a fresh proof from the browser itself, so a daemon's NATS
// credentials cannot claim a browser that never connected to it. Web Crypto only, so the daemon (Node) and the
// extension (an MV3 worker) share this code.
import { z } from 'zod';
import { fromBase64Url, toBase64Url } from './base64url';
import { validate, type Validated } from './validate';

/** Bytes of an Ed25519 public key, raw. */
export const BROWSER_KEY_BYTES = 32;
/** Bytes of an Ed25519 signature. */
export const HOLD_SIGNATURE_BYTES = 64;
/** How every signed hold statement starts (the version of this format). */
export const HOLD_STATEMENT_PREFIX = 'bmcp-hold-1';
/** How often the daemon holding a browser asks it for a new proof. */
export const HOLD_PROOF_RENEW_MS = 30_000;
/**
 * How long a proof keeps a browser connected to the daemon it names, as the other daemons judge it: past it, that
 * daemon has not heard from the browser for several renewals.
 */
export const HOLD_PROOF_CONNECTED_MS = 120_000;
/**
 * How long a proof keeps a browser that went away held by the daemon it names, as the other daemons judge it: twice
 * the default grace period. Among the entries of a browser away from all, the newest proof holds it.
 */
export const HOLD_PROOF_AWAY_MS = 600_000;
/** How far in the future a proof's instant may be (clocks of one cluster differ by less). */
export const HOLD_PROOF_CLOCK_SKEW_MS = 60_000;
/**
 * How far from its own clock an instant may be for the browser to sign it: a daemon cannot have it sign proofs for
 * days ahead (a person's clock may be off by a few minutes).
 */
export const HOLD_PROOF_SIGN_WINDOW_MS = 600_000;
/** A daemon instance's id, as the cluster allows them (so a statement's parts never run into each other). */
export const HOLD_INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

const base64urlOf = (bytes: number) => new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((bytes * 4) / 3)}}$`);
const KEY_TEXT = base64urlOf(BROWSER_KEY_BYTES);
const SIGNATURE_TEXT = base64urlOf(HOLD_SIGNATURE_BYTES);

/** A browser's public key as it travels: its 32 raw bytes in base64url. */
export const browserKeySchema = z.string().regex(KEY_TEXT, `must be an Ed25519 public key: ${BROWSER_KEY_BYTES} bytes in base64url`);

/** A browser's public key as it travels (the hello's `key`), from the Web Crypto key. */
export async function exportBrowserKey(publicKey: CryptoKey): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.exportKey('raw', publicKey)));
}

/** The browser's id for its public key: SHA-256 of the key's raw bytes, in base64url (43 characters). */
export async function browserIdOfKey(key: string): Promise<string | undefined> {
  const raw = KEY_TEXT.test(key) ? fromBase64Url(key) : undefined;
  if (raw === undefined || raw.byteLength !== BROWSER_KEY_BYTES) return undefined;
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', raw)));
}

/**
 * What the browser signs: that `instanceId` held `browserId` at `at` (the holding daemon's clock, in ms) for `user`
 * (the user whose token the extension authenticated with; null without auth), which the directory entry names too.
 */
export function holdStatement(browserId: string, instanceId: string, at: number, user: string | null): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  // The user in base64url (any characters), or "-" for none: no part of the statement runs into the next.
  const userPart = user === null ? '-' : toBase64Url(encoder.encode(user));
  return encoder.encode(`${HOLD_STATEMENT_PREFIX} ${browserId} ${instanceId} ${at} ${userPart}`);
}

/** The browser's signature of a hold statement (Ed25519), in base64url. */
export async function signHold(privateKey: CryptoKey, browserId: string, instanceId: string, at: number, user: string | null): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.sign('Ed25519', privateKey, holdStatement(browserId, instanceId, at, user))));
}

/** daemon → extension `prove_hold`: sign that `instance` holds this browser at `at`, for `user`. */
export const proveHoldPayloadSchema = z.object({
  instance: z.string().regex(HOLD_INSTANCE_ID, 'must be 1-64 letters, digits, "_" or "-" (a daemon instance id)'),
  at: z.number().int().nonnegative(),
  user: z.string().min(1).max(200).nullable(),
});
export type ProveHoldPayload = z.infer<typeof proveHoldPayloadSchema>;

/** extension → daemon `hold_proof`: the signature of the statement the daemon asked for. */
export const holdProofPayloadSchema = proveHoldPayloadSchema.pick({ instance: true, at: true }).extend({
  sig: z.string().regex(SIGNATURE_TEXT, `must be an Ed25519 signature: ${HOLD_SIGNATURE_BYTES} bytes in base64url`),
});
export type HoldProofPayload = z.infer<typeof holdProofPayloadSchema>;

/** A hold proof as a directory entry carries it: the browser's key, the instant, and the browser's signature. */
export const holdProofSchema = z.object({
  key: browserKeySchema,
  at: z.number().int().nonnegative(),
  sig: holdProofPayloadSchema.shape.sig,
});
export type HoldProof = z.infer<typeof holdProofSchema>;

export function parseProveHold(payload: unknown): Validated<ProveHoldPayload> {
  return validate(proveHoldPayloadSchema, payload, 'payload');
}

export function parseHoldProof(payload: unknown): Validated<HoldProofPayload> {
  return validate(holdProofPayloadSchema, payload, 'payload');
}
