import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** What the key of the sealed secrets is derived for (TokenVerifier.derivedKey). */
export const SESSION_SECRETS_PURPOSE = 'browsermcp cluster session secrets v1';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What sealed secrets are bound to: they open only for the same session, browser and user. */
export interface SealedFor {
  readonly sessionId: string;
  readonly executorId: string;
  readonly userId?: string | undefined;
}

/**
 * A session's secrets (`--secrets`: names whose values are typed into pages and never shown) as its record keeps them
 * in the cluster's store, which every daemon's NATS credentials may read: sealed (AES-256-GCM) under a key derived
 * from the daemons' shared token secret, bound to the session, its browser and its user, so that a NATS seed alone
 * reads none of them, nor moves them to a session of its own. The instance that runs the session's browser opens them
 * again to hand them to the browser.
 */
export class SessionSecrets {
  readonly #key: Uint8Array;

  constructor(key: Uint8Array) {
    this.#key = key;
  }

  seal(session: SealedFor, secrets: Readonly<Record<string, string>>): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES }).setAAD(aad(session));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The secrets sealed for this session, or undefined when sealed for another session (browser, user), key, or changed. */
  open(session: SealedFor, sealed: unknown): Record<string, string> | undefined {
    if (typeof sealed !== 'string') return undefined;
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES }).setAAD(aad(session));
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

function aad(session: SealedFor): Buffer {
  return Buffer.from(JSON.stringify(['browsermcp session secrets', session.sessionId, session.executorId, session.userId ?? null]), 'utf8');
}
