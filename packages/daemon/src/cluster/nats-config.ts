import { nkeys } from '@nats-io/transport-node';
import { writableRouterKeys } from './kv-store.js';
import { ClusterNames, INSTANCE_ID_PATTERN } from './names.js';

// A least-privilege NATS configuration for one cluster: an account of its own (nothing outside it sees a subject of
// the cluster), one user per daemon, authenticated by an nkey (the server keeps only public keys), and each daemon
// allowed the subjects its job needs: it receives only its own instance's requests and replies, writes only its own
// directory entries, signing keys, versions of sessions, parts of kept states and shared secrets, and may not delete or
// purge a bucket. NATS enforces this on the server, before a message moves.

/** One daemon of the cluster, as the NATS server knows it. */
export interface ClusterMember {
  readonly instanceId: string;
  /** The daemon's public user nkey (U…); its seed stays with the daemon (--nats-nkey-seed-file). */
  readonly nkey: string;
}

export interface NatsClusterConfigOptions {
  readonly members: readonly ClusterMember[];
  /** The daemons' subject and bucket prefix (ClusterSettings.prefix; default "browsermcp"). */
  readonly prefix?: string | undefined;
  /** The NATS account the cluster lives in (default "BROWSERMCP"). */
  readonly account?: string | undefined;
  /** The most disk the cluster's buckets may take together, in NATS's size syntax (DEFAULT_MAX_STORE). */
  readonly maxStore?: string | undefined;
}

/** The account's JetStream disk by default: ample for a hundred thousand sessions (a version is about a kilobyte). */
export const DEFAULT_MAX_STORE = '1G';
/** JetStream consumers per daemon: it holds two watches; the rest is room for a restart's leftovers. */
const CONSUMERS_PER_DAEMON = 16;

/** A size as nats-server reads one: digits, then K, M, G or T (powers of 1024). */
export function checkNatsSize(size: string, name: string): string {
  if (!/^[1-9]\d{0,12}[KMGT]?$/.test(size)) throw new Error(`${name} "${size}" must be a size such as 512M or 4G (digits, then K, M, G or T)`);
  return size;
}

/** A new nkey pair for a daemon: its member entry for the server's config, and the seed the daemon keeps. */
export function createClusterMember(instanceId: string): { member: ClusterMember; seed: string } {
  checkInstanceId(instanceId);
  const pair = nkeys.createUser();
  return { member: { instanceId, nkey: pair.getPublicKey() }, seed: new TextDecoder().decode(pair.getSeed()) };
}

/** What one daemon may publish and subscribe to. */
export function memberPermissions(names: ClusterNames, instanceId: string): { publish: string[]; subscribe: string[] } {
  checkInstanceId(instanceId);
  const streams = [names.routerBucket, names.browsersBucket].map((bucket) => `KV_${bucket}`);
  return {
    publish: [
      // Requests (and a browser's events) to any instance, always under its own name as the sender.
      names.instanceSubject('*', instanceId),
      names.endedSubject,
      // The store: its own versions of sessions, parts of kept states, shared secrets, signing keys and directory
      // entries (a browser's tab claims stay with the daemon holding it).
      ...writableRouterKeys(instanceId).map((key) => `$KV.${names.routerBucket}.${key}`),
      `$KV.${names.browsersBucket}.${names.instanceKey(instanceId)}`,
      `$KV.${names.browsersBucket}.${names.browserKeyPrefix(instanceId)}.>`,
      // JetStream's API for the two buckets: create, read, watch; never update (a max age of 1 s purges a bucket),
      // delete, purge or remove a message. A daemon opens an existing bucket as it is.
      '$JS.API.INFO',
      ...streams.flatMap((stream) => [
        `$JS.API.STREAM.INFO.${stream}`,
        `$JS.API.STREAM.CREATE.${stream}`,
        `$JS.API.STREAM.MSG.GET.${stream}`,
        `$JS.API.DIRECT.GET.${stream}`,
        `$JS.API.DIRECT.GET.${stream}.>`,
        `$JS.API.CONSUMER.CREATE.${stream}`,
        `$JS.API.CONSUMER.CREATE.${stream}.>`,
        `$JS.API.CONSUMER.INFO.${stream}.>`,
        `$JS.API.CONSUMER.DELETE.${stream}.>`,
      ]),
    ],
    subscribe: [names.instanceSubject(instanceId, '*'), names.endedSubject, `${names.inboxPrefix(instanceId)}.>`],
  };
}

/**
 * The nats-server configuration of a cluster (its account, users and permissions), to include in the server's own
 * file or to run as it is: `nats-server -c nats.conf -js -sd <dir>`.
 */
export function natsClusterConfig(options: NatsClusterConfigOptions): string {
  const account = options.account ?? 'BROWSERMCP';
  if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(account)) throw new Error(`account "${account}" must be a letter then up to 63 letters, digits, - or _`);
  const names = new ClusterNames(options.prefix);
  const maxStore = checkNatsSize(options.maxStore ?? DEFAULT_MAX_STORE, 'the most disk (--max-store)');
  const seen = new Set<string>();
  const users = options.members.map((member) => {
    if (seen.has(member.instanceId)) throw new Error(`instance id "${member.instanceId}" is listed twice`);
    seen.add(member.instanceId);
    if (!/^U[A-Z2-7]{55}$/.test(member.nkey)) throw new Error(`the nkey of "${member.instanceId}" is not a public user nkey (U followed by 55 characters)`);
    const { publish, subscribe } = memberPermissions(names, member.instanceId);
    return [
      `      # daemon --instance-id ${member.instanceId}`,
      `      { nkey: ${member.nkey}`,
      '        permissions: {',
      `          publish: { allow: ${list(publish, 12)} }`,
      `          subscribe: { allow: ${list(subscribe, 12)} }`,
      // Replies to the requests it received, whatever inbox they came from, and nothing else there.
      '          allow_responses: true',
      '        }',
      '      }',
    ].join('\n');
  });
  return [
    `# browsermcp cluster "${names.prefix}": written by \`browsermcp-daemon nats-config\`; see packages/daemon/README.md.`,
    '# Each daemon connects with --nats-nkey-seed-file <its seed> and --instance-id <its id>; nothing else may connect',
    '# to this account, and no other account sees its subjects.',
    '',
    '# A snapshot of a big page crosses between daemons in one message.',
    'max_payload: 8MB',
    '',
    'accounts: {',
    `  ${account}: {`,
    "    # Bounds on what the account's credentials can take from the server, a stolen seed's included: disk (a full",
    '    # store refuses writes, to every daemon alike), no memory streams, the two buckets, and consumers.',
    `    jetstream: { max_file: ${maxStore}, max_mem: 0, max_streams: 2, max_consumers: ${Math.max(1, seen.size) * CONSUMERS_PER_DAEMON} }`,
    '    users: [',
    users.join('\n'),
    '    ]',
    '  }',
    '}',
    '',
  ].join('\n');
}

function list(items: readonly string[], indent: number): string {
  const pad = ' '.repeat(indent + 2);
  return `[\n${items.map((item) => `${pad}"${item}"`).join('\n')}\n${' '.repeat(indent)}]`;
}

function checkInstanceId(instanceId: string): void {
  if (!INSTANCE_ID_PATTERN.test(instanceId)) throw new Error(`instance id "${instanceId}" must be 1-64 letters, digits, "-" or "_"`);
}
