import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SessionRecord } from '../router/store.js';
import { canonicalAsRead } from './record-signatures.js';

/** What the key of sealed records is derived for (TokenVerifier.derivedKey). */
export const SEALED_RECORDS_PURPOSE = 'browsermcp cluster sealed records v1';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Parts kept opened, by what they were sealed as and for: a record is read on every command that crosses instances. */
const MAX_OPENED = 1024;
/** A part is padded to a multiple of this many bytes: its sealed length says little of what it holds (secrets or none). */
const PAD_BYTES = 256;

/**
 * What a sealed part is bound to (its additional authenticated data): it opens only for the same kind of record and
 * the same ids, e.g. `['session', sessionId, executorId]` or `['browser', browserId, instanceId]`.
 */
export type SealedFor = readonly string[];

/** A session record's binding: its session and its browser. */
export const sessionBinding = (record: { sessionId: string; executorId: string }): SealedFor => ['session', record.sessionId, record.executorId];

/** The parts of a session record that say whose it is and how it behaves: only the daemons read them. */
export type PrivatePart = Pick<SessionRecord, 'clientName' | 'agent' | 'userId' | 'account' | 'settings'>;

/** The record split into what the store shows every daemon's credentials and what it keeps sealed. */
export function splitRecord(record: SessionRecord): { open: SessionRecord; part: PrivatePart } {
  const { clientName, agent, userId, account, settings, ...open } = record;
  return { open, part: { clientName, agent, userId, account, settings } };
}

/** Whether two records of a session say the same of its browser, whose it is and how it behaves. */
export function samePart(a: SessionRecord, b: SessionRecord): boolean {
  return a.executorId === b.executorId && canonicalAsRead(splitRecord(a).part) === canonicalAsRead(splitRecord(b).part);
}

/**
 * The private part of a record in the cluster's buckets, which every daemon's NATS credentials may read: a session
 * record's user, agent, client, account and settings with `--secrets`, an extension directory entry's user, name and proofs.
 * Sealed (AES-256-GCM) under a key derived from the daemons' shared token secret, bound to the record (SealedFor), so
 * that a NATS seed alone reads none of it, nor moves it to another record. What stays in clear is what works without
 * the secret: a session's id, browser, server and current tab; a browser's id, instance and state.
 */
export class SealedRecords {
  readonly #key: Uint8Array;
  /** The text of parts opened: parsed again for each read, so that no reader shares another's object. */
  readonly #opened = new Map<string, string>();

  constructor(key: Uint8Array) {
    this.#key = key;
  }

  seal(bound: SealedFor, part: object): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES }).setAAD(aad(bound));
    const text = Buffer.from(JSON.stringify(part), 'utf8');
    // Spaces after it, which JSON reads as nothing.
    const padded = Buffer.alloc(Math.ceil((text.length + 1) / PAD_BYTES) * PAD_BYTES, ' ');
    text.copy(padded);
    const sealed = Buffer.concat([cipher.update(padded), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The part sealed for this binding, or undefined when sealed for another record, with another key, or changed. */
  open(bound: SealedFor, sealed: unknown): Record<string, unknown> | undefined {
    if (typeof sealed !== 'string') return undefined;
    // A fresh nonce for each seal: the same text is the same sealing.
    const known = JSON.stringify([bound, sealed]);
    let text = this.#opened.get(known);
    if (text === undefined) {
      text = this.#open(bound, sealed);
      if (text === undefined) return undefined;
      if (this.#opened.size >= MAX_OPENED) this.#opened.delete(this.#opened.keys().next().value!);
      this.#opened.set(known, text);
    }
    try {
      const value: unknown = JSON.parse(text);
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  #open(bound: SealedFor, sealed: string): string | undefined {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES }).setAAD(aad(bound));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

function aad(bound: SealedFor): Buffer {
  return Buffer.from(JSON.stringify(['browsermcp sealed record', ...bound]), 'utf8');
}
