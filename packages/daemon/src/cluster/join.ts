import { randomBytes } from 'node:crypto';
import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { InvalidArgumentError } from '../errors.js';
import type { RouterLogger, SessionRecord } from '../router/index.js';
import { openBucket } from './buckets.js';
import { BrowserDirectory } from './directory.js';
import { KvRouterStore } from './kv-store.js';
import { answers } from './messages.js';
import { ClusterNames, INSTANCE_ID_PATTERN } from './names.js';
import { natsFailure } from './nats-errors.js';
import { RecordSigner } from './record-signatures.js';
import { SEALED_RECORDS_PURPOSE, SealedRecords } from './sealed-records.js';
import { USER_PROOF_PURPOSE, UserProofs } from './user-proofs.js';
import { hasNatsCredentials, natsConnectError, natsConnectionOptions, redactNatsUrl, type NatsConnectSettings } from './nats-connection.js';
import { MAX_INSTANCE_BYTES } from './session-index.js';

/**
 * How long one try to connect to NATS waits for the handshake (nats.js's own: 20 s), and how many tries are made. A
 * daemon starting on a busy machine can take seconds to answer the greeting (shorter tries, 3 s, measured slower in a
 * loaded CI: a handshake that would have finished was cut and started over).
 */
const HANDSHAKE_TIMEOUT_MS = 5_000;
const HANDSHAKE_TRIES = 3;

/**
 * Connects, trying again while the handshake goes unanswered or NATS gave up waiting for it ("Authentication
 * Timeout": a daemon starved of CPU while it started), so that neither is taken for refused credentials; a try whose
 * answer is read says what NATS said.
 */
async function connectTrying(options: ConnectionOptions): Promise<NatsConnection> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect({ ...options, timeout: HANDSHAKE_TIMEOUT_MS });
    } catch (error) {
      if (attempt >= HANDSHAKE_TRIES || natsFailure(error) !== 'timeout') throw error;
    }
  }
}

/** A dead instance's browsers leave the directory this long after its last heartbeat. */
export const DEFAULT_DIRECTORY_TTL_MS = 6_000;

export interface ClusterOptions extends NatsConnectSettings {
  /** This daemon's id in the cluster; random when not given. */
  instanceId?: string | undefined;
  version: string;
  logger: RouterLogger & { info(details: Record<string, unknown>, message: string): void };
  /** Buckets and subjects start with this (default "browsermcp"), so clusters can share one NATS. */
  prefix?: string | undefined;
  heartbeatMs?: number | undefined;
  directoryTtlMs?: number | undefined;
  /**
   * Keys derived from the daemons' shared token secret (TokenVerifier.derivedKey; HS256), the same on every daemon of
   * the cluster: with them a session record's or a browser entry's user counts only as proven by a daemon that checked
   * that user's token (user-proofs.ts), a record's private part (user, agent, settings, secrets) is sealed
   * (sealed-records.ts), and kept browser states' owners are derived from a key no NATS credential reads. Without
   * (public-key auth, or none) the cluster keeps these as before: users on their daemon's word, records in clear, the
   * owners' key in the store.
   */
  derivedKey?: ((purpose: string) => Uint8Array) | undefined;
}

/** What the kept browser states' owner key is derived for, where the daemons share a token secret. */
const STATE_OWNERS_PURPOSE = 'browsermcp cluster kept-state owners v1';

/** A random id for an instance that was not given one: short enough to read in logs. */
export function randomInstanceId(): string {
  return randomBytes(4).toString('hex');
}

/** What joining gives a cluster node: its connection, the store, the directory, its id and the daemons' shared secret. */
export interface JoinedCluster {
  nc: NatsConnection;
  store: KvRouterStore;
  directory: BrowserDirectory;
  instanceId: string;
  stateSecret: Uint8Array;
}

/**
 * Connects to NATS and opens (or creates) the cluster's buckets and directory, refusing a NATS anyone may join and an
 * instance id another live daemon holds. Fails with a message naming the fix; `isDown` tells the store whether NATS
 * is away (the node's own reading).
 */
export async function joinCluster(options: ClusterOptions, isDown: () => boolean): Promise<JoinedCluster> {
  const instanceId = options.instanceId ?? randomInstanceId();
  if (!INSTANCE_ID_PATTERN.test(instanceId)) {
    throw new InvalidArgumentError(`instance id "${instanceId}" must be 1-64 letters, digits, "-" or "_"`);
  }
  const names = new ClusterNames(options.prefix);
  const connectOptions = natsConnectionOptions(options, `browsermcp-daemon ${instanceId}`, names.inboxPrefix(instanceId));
  let nc: NatsConnection;
  try {
    nc = await connectTrying(connectOptions);
  } catch (error) {
    throw natsConnectError(error, options);
  }
  const where = redactNatsUrl(options.url);
  try {
    // A NATS anyone may join lets anyone read and drive every session: refused unless asked for on purpose.
    if (nc.info?.auth_required !== true && options.allowAnonymous !== true) {
      throw new InvalidArgumentError(
        `NATS at ${where} lets anyone connect without credentials, and whoever reaches it could read and drive every session. ` +
          "Give each daemon a NATS user with its own permissions (browsermcp-daemon nats-config writes the server's config), " +
          'or pass --nats-allow-anonymous for a NATS that only trusted processes can reach',
      );
    }
    if (nc.info?.auth_required === true && !hasNatsCredentials(options)) {
      throw new InvalidArgumentError(
        `NATS at ${where} needs credentials: give --nats-nkey-seed-file, --nats-creds-file, --nats-token or a user and password in --nats`,
      );
    }
    const router = await openBucket(nc, names.routerBucket);
    const browsers = await openBucket(nc, names.browsersBucket, { ttlMs: options.directoryTtlMs ?? DEFAULT_DIRECTORY_TTL_MS });
    const { derivedKey } = options;
    const userProofs = derivedKey && new UserProofs(derivedKey(USER_PROOF_PURPOSE));
    const sealedRecords = derivedKey && new SealedRecords(derivedKey(SEALED_RECORDS_PURPOSE));
    const directory = new BrowserDirectory(browsers, names, instanceId, userProofs, sealedRecords);
    await directory.start();
    // An entry under this id is another daemon only if something answers for it: a daemon restarting under its
    // old id after a crash finds the entry of its dead self, which has not expired yet.
    if (directory.instances().some((i) => i.instanceId === instanceId) && (await answers(nc, names.instanceSubject(instanceId, instanceId)))) {
      throw new InvalidArgumentError(`instance id "${instanceId}" is already in use in this cluster; give each daemon its own --instance-id`);
    }
    const onUnsigned = (record: SessionRecord, where: string) =>
      options.logger.warn(
        { sessionId: record.sessionId, servedBy: record.servedBy },
        `left out a session whose record the instance it names did not sign, or whose user it did not prove (${where})`,
      );
    const onUnprovenState = (owner: string) =>
      options.logger.warn(
        { owner },
        "left out an instance's part of a kept browser state whose proof did not hold (written by a daemon without the token secret)",
      );
    const onInstanceFull = (full: string) =>
      options.logger.warn(
        { instanceId: full, maxBytes: MAX_INSTANCE_BYTES },
        "left out an instance's further versions of sessions: they pass what a daemon keeps of one instance (its daemon is broken, or its NATS credentials are misused)",
      );
    const store = new KvRouterStore(router, isDown, {
      instanceId,
      signer: new RecordSigner(),
      onUnsigned,
      onUnprovenState,
      onInstanceFull,
      onWatchEnded: (error: unknown) =>
        options.logger.warn({ error }, 'the watch of the sessions ended: other daemons’ changes now arrive with the full read once a minute'),
      userProofs,
      sealedRecords,
    });
    await store.publishSigningKey();
    await store.start();
    const stateSecret = derivedKey ? derivedKey(STATE_OWNERS_PURPOSE) : await store.sharedSecret('state-owners');
    return { nc, store, directory, instanceId, stateSecret };
  } catch (error) {
    await nc.close();
    const failure = natsFailure(error);
    // The JetStream API has no responders where JetStream is off.
    if (failure === 'no-jetstream' || failure === 'no-responders') {
      throw new InvalidArgumentError(`NATS at ${where} has no JetStream: start nats-server with -js (and -sd <dir>)`);
    }
    throw error;
  }
}
