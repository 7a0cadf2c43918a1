import type { HoldProof } from '@browsermcp/protocol';

/** How an extension browser stands, as the cluster hears it and tells it. */
export type ExtensionBrowserState = 'connected' | 'reconnecting' | 'gone';

/** An extension's connection, as the cluster asks it whether it is still there. */
export interface LiveConnection {
  /** Whether the extension answers a ping within `timeoutMs` now. */
  answersPing(timeoutMs: number): Promise<boolean>;
}

/**
 * What the cluster needs of the extension browsers connected to this daemon (the server's ExtensionRegistry is
 * them): declared here, so that the cluster, which the server uses, does not use the server back.
 */
export interface ExtensionBrowsers {
  readonly records: ReadonlyMap<
    string,
    {
      readonly id: string;
      readonly name: string;
      readonly userId: string | null;
      readonly connection: LiveConnection | null;
      /** The browser's latest proof that this instance holds it. */
      readonly hold?: HoldProof | undefined;
    }
  >;
  /** The user of a browser another instance holds (null without auth), or undefined when none does. */
  ownerElsewhere: ((browserId: string) => string | null | undefined) | undefined;
  /** Told as soon as a hello takes a browser here, before its sessions open again. */
  taken: ((browserId: string) => void) | undefined;
  /** Told when a connected browser signed a new hold proof. */
  proven: ((browserId: string) => void) | undefined;
  onChange(listener: (id: string, state: ExtensionBrowserState) => void): () => void;
  emit(id: string, state: ExtensionBrowserState): void;
  forget(id: string): void;
}
