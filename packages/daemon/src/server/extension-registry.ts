import type { HoldProof } from '@browsermcp/protocol';
import type { ExtensionBrowserState, ExtensionBrowsers, LiveConnection } from '../cluster/extension-browsers.js';
import { Deadlines } from '../deadlines.js';
import type { Executor } from '../router/index.js';

/** An extension's connection as the registry holds it (extensions.ts's ExtensionConnection). */
export interface RegisteredConnection extends Executor, LiveConnection {
  close(code: number, reason: string): void;
}

export interface ExtensionRecord {
  readonly id: string;
  name: string;
  browser: string;
  version: string;
  /** The user whose token the extension authenticated with; null when the daemon runs without auth. */
  userId: string | null;
  /** The live connection, or null while it is away (within its grace period). */
  connection: RegisteredConnection | null;
  /** Away because the person paused it (the popup's Disconnect), not because it dropped. */
  paused: boolean;
  /** In a cluster: the browser's latest proof that this instance holds it (the protocol's browser-key.ts). */
  hold?: HoldProof | undefined;
}

/** The browsers connected through /extension, by browserId. Shared with the proxy endpoint (/mcp). */
export class ExtensionRegistry implements ExtensionBrowsers {
  readonly records = new Map<string, ExtensionRecord>();
  /** Each away browser's grace period, by browserId: its record goes when it runs out. */
  readonly expiries = new Deadlines<string>();
  /**
   * In a cluster: the user of a browser another instance holds (null without auth), or undefined when no other
   * instance holds it; a hello with that browser id from another user's extension is refused.
   */
  ownerElsewhere: ((browserId: string) => string | null | undefined) | undefined;
  /**
   * In a cluster: told as soon as a hello takes the browser here, before its sessions open again, so that the
   * directory claims it at once (an entry claiming it elsewhere would otherwise hold it meanwhile).
   */
  taken: ((browserId: string) => void) | undefined;
  /** In a cluster: told when a connected browser signed a new hold proof, which its directory entry then carries. */
  proven: ((browserId: string) => void) | undefined;
  private readonly listeners = new Set<(id: string, state: ExtensionBrowserState) => void>();

  onChange(listener: (id: string, state: ExtensionBrowserState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(id: string, state: ExtensionBrowserState): void {
    for (const listener of this.listeners) listener(id, state);
  }

  get connectedCount(): number {
    let n = 0;
    for (const r of this.records.values()) if (r.connection) n++;
    return n;
  }

  /** Drops an away browser's record without a 'gone' (it reconnected to another instance of the cluster). */
  forget(id: string): void {
    const record = this.records.get(id);
    if (record === undefined || record.connection !== null) return;
    this.expiries.clear(id);
    this.records.delete(id);
  }

  clear(): void {
    this.expiries.clearAll();
    this.records.clear();
    this.listeners.clear();
  }
}
