import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** What the key of the sealed secrets is derived for (TokenVerifier.derivedKey). */
export const SESSION_SECRETS_PURPOSE = 'browsermcp cluster session secrets v1';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A session's secrets (`--secrets`: names whose values are typed into pages and never shown) as its record keeps them
 * in the cluster's store, which every daemon's NATS credentials may read: sealed (AES-256-GCM) under a key derived
 * from the daemons' shared token secret, bound to the session's id, so that a NATS seed alone reads none of them. The
 * instance that runs the session's browser opens them again to hand them to the browser.
 */
export class SessionSecrets {
  readonly #key: Uint8Array;

  constructor(key: Uint8Array) {
    this.#key = key;
  }

  seal(sessionId: string, secrets: Readonly<Record<string, string>>): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv).setAAD(aad(sessionId));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The secrets sealed for this session, or undefined when they were sealed for another session, key, or changed. */
  open(sessionId: string, sealed: unknown): Record<string, string> | undefined {
    if (typeof sealed !== 'string') return undefined;
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES)).setAAD(aad(sessionId));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      const value: unknown = JSON.parse(text);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
    } catch {
      return undefined;
    }
  }
}

function aad(sessionId: string): Buffer {
  return Buffer.from(`browsermcp session secrets\u0000${sessionId}`, 'utf8');
}
