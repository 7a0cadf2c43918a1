import type { SessionRecord } from '../router/store.js';
import type { RecordSigner } from './record-signatures.js';
import type { SealedRecords } from './sealed-records.js';
import type { UserProofs } from './user-proofs.js';

/** How this instance signs the session records it serves, and what goes with them (KvRouterStore). */
export interface RecordSigning {
  readonly instanceId: string;
  readonly signer: RecordSigner;
  /** Told of a record that the instance it names as its server did not sign, where it was not believed. */
  readonly onUnsigned?: (record: SessionRecord, where: string) => void;
  /** Told of a kept browser state (by its owner key) whose proof did not hold, where it was not believed. */
  readonly onUnprovenState?: (owner: string) => void;
  /** Told, once, of an instance whose versions of sessions pass what this copy keeps of one (MAX_INSTANCE_BYTES). */
  readonly onInstanceFull?: (instanceId: string) => void;
  /** Told when the watch that follows the versions of sessions ends with an error (the minute's full read goes on). */
  readonly onWatchEnded?: (error: unknown) => void;
  /**
   * Proofs of a session's user (user-proofs.ts): made for the records this instance signs, required of every record
   * with a user. Absent where the daemons share no token secret (public-key auth): a record's user is then its
   * server's word.
   */
  readonly userProofs?: UserProofs;
  /**
   * How a record keeps its private part, its user, agent, client, account and settings with `--secrets`
   * (sealed-records.ts): sealed, where the daemons share a token secret; in clear otherwise.
   */
  readonly sealedRecords?: SealedRecords;
}
