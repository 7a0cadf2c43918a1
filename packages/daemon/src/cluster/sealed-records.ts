import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SessionRecord } from '../router/store.js';

/** What the key of sealed records is derived for (TokenVerifier.derivedKey). */
export const SEALED_RECORDS_PURPOSE = 'browsermcp cluster sealed records v1';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Parts kept opened, by what they were sealed as and for: a record is read on every command that crosses instances. */
const MAX_OPENED = 1024;

/** What a sealed record is bound to: it opens only under the same session and browser. */
export interface SealedFor {
  readonly sessionId: string;
  readonly executorId: string;
}

/** The parts of a session record that say whose it is and how it behaves: only the daemons read them. */
export type PrivatePart = Pick<SessionRecord, 'clientName' | 'agent' | 'userId' | 'account' | 'settings'>;

/** The record split into what the store shows every daemon's credentials and what it keeps sealed. */
export function splitRecord(record: SessionRecord): { open: SessionRecord; part: PrivatePart } {
  const { clientName, agent, userId, account, settings, ...open } = record;
  return { open, part: { clientName, agent, userId, account, settings } };
}

/**
 * The private part of a session record (its user, agent, client, account and settings with `--secrets`) as the
 * cluster's store keeps it, which every daemon's NATS credentials may read: sealed (AES-256-GCM) under a key derived
 * from the daemons' shared token secret, bound to the session and its browser, so that a NATS seed alone reads none
 * of it, nor moves it to another session. What stays in clear is what cleanup needs without the secret: the
 * session, its browser, its server and current tab.
 */
export class SealedRecords {
  readonly #key: Uint8Array;
  readonly #opened = new Map<string, PrivatePart>();

  constructor(key: Uint8Array) {
    this.#key = key;
  }

  seal(session: SealedFor, part: PrivatePart): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES }).setAAD(aad(session));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(part), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The part sealed for this session, or undefined when sealed for another session or browser, key, or changed. */
  open(session: SealedFor, sealed: unknown): PrivatePart | undefined {
    if (typeof sealed !== 'string') return undefined;
    // A fresh nonce for each seal: the same text is the same sealing.
    const known = JSON.stringify([session.sessionId, session.executorId, sealed]);
    const cached = this.#opened.get(known);
    if (cached !== undefined) return cached;
    const part = this.#open(session, sealed);
    if (part !== undefined) {
      if (this.#opened.size >= MAX_OPENED) this.#opened.delete(this.#opened.keys().next().value!);
      this.#opened.set(known, part);
    }
    return part;
  }

  #open(session: SealedFor, sealed: string): PrivatePart | undefined {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES }).setAAD(aad(session));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      const value: unknown = JSON.parse(text);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      // Sealed by a daemon holding the token secret: its own writing, as the router wrote the record.
      return value as PrivatePart;
    } catch {
      return undefined;
    }
  }
}

function aad(session: SealedFor): Buffer {
  return Buffer.from(JSON.stringify(['browsermcp sealed record', session.sessionId, session.executorId]), 'utf8');
}
