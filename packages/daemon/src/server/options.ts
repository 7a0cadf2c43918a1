import { randomBytes } from 'node:crypto';
import { InvalidArgumentError } from '../errors.js';
import type { ClusterNode } from '../cluster/node.js';
import type { LocalExecutor } from '../local/executor.js';
import { NodeFileAccess, sessionFilesOwner, type NodeFileAccessOptions } from '../local/files.js';
import type { SessionRouter } from '../router/index.js';
import { HOLD_PROOF_RENEW_MS, type SessionSettings } from '@browsermcp/protocol';
import type { TokenVerifier } from './auth.js';
import type { ConnectionLimits } from './connections.js';
import { allowedHostNames } from './guard.js';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_HELLO_TIMEOUT_MS, EXTENSION_ID, EXTENSION_ID_PATTERN } from './constants.js';

export interface DaemonAppOptions {
  /** The router every endpoint dispatches to. The app does not close it: its owner does. */
  router: SessionRouter;
  /** The in-process executor, when enabled: listed by list_extensions as "local" and counted by /health. */
  localExecutor?: LocalExecutor | undefined;
  /** This daemon's membership of a cluster (`--nats`): browsers are listed cluster-wide. */
  cluster?: ClusterNode | undefined;
  /** Reported by /health. */
  version?: string | undefined;
  /**
   * Host names that may reach the daemon (any port; a port given is ignored); others get 403, which stops DNS
   * rebinding. Always: localhost, 127.0.0.1 and [::1]. Add the names you reach the daemon by; "*" accepts any Host.
   */
  allowedHosts?: string[] | undefined;
  /** Browser Origins (e.g. "https://app.example.com") that may call the HTTP API; requests with other Origins get 403. */
  corsOrigins?: string[] | undefined;
  /** Extension ids whose `chrome-extension://<id>` Origin may open /extension. Default: [EXTENSION_ID]. */
  extensionIds?: string[] | undefined;
  /** Connections one client address may hold and how long a request may take to arrive (DEFAULT_CONNECTION_LIMITS). */
  connectionLimits?: Partial<ConnectionLimits> | undefined;
  /** Verifies access tokens on /mcp and /extension; without it the daemon runs without auth (loopback use). */
  verifier?: TokenVerifier | undefined;
  /**
   * The secret the extension must be paired with (the protocol's pairing.ts): every /extension connection proves it
   * holds it, and the daemon proves it back, before anything else. The gateway and the daemon CLI always set it on
   * loopback (see pairing-secret.ts); without it any process that sends the extension's Origin could pose as it.
   */
  pairingSecret?: Uint8Array | undefined;
  /**
   * The instance id the connected browsers sign hold proofs for (the protocol's browser-key.ts): each is asked at its
   * hello and every HOLD_PROOF_RENEW_MS, and a hello without a browser key is refused. Default: the cluster's
   * instance id in a cluster, else none (a daemon alone has no one to prove a hold to).
   */
  holdProofsFor?: string | undefined;
  /** How often a connected browser is asked for a new hold proof (with holdProofsFor). Default HOLD_PROOF_RENEW_MS. */
  holdProofRenewMs?: number | undefined;
  /**
   * The secret kept browser states' owners are derived under (state-owners.ts): the daemons of a cluster share one
   * (ClusterNode.stateSecret); random per process by default.
   */
  stateSecret?: Uint8Array | undefined;
  /** Ping interval of both WebSockets; a peer that misses one pong is dropped. Default 15 000 ms. */
  heartbeatMs?: number | undefined;
  /** How long an extension has to authenticate and say hello. Default 10 000 ms. */
  helloTimeoutMs?: number | undefined;
  /**
   * Serve the endpoints that drive browsers for clients (/sessions, /commands, WebSocket /mcp). Default true. A
   * daemon embedded in the gateway turns them off: its clients come through the gateway, which checks their key,
   * and an open /commands on loopback would let any local process drive the person's browser.
   */
  commandEndpoints?: boolean | undefined;
  /**
   * How tools behave in extension sessions (the gateway's snapshot budget, origin lists, caps), sent to the extension
   * with each session: the launched browser's executor gets the same as its toolConfig.
   */
  sessionSettings?: SessionSettings | undefined;
  /**
   * Uploads and saved files for extension sessions, under the same policy as a launched browser: uploads are read
   * from `outputDir` and `roots` and sent with the command; what tools save is written to `outputDir`. Without it,
   * extension tools that need files say there is no file access. `allowUnrestrictedFileAccess` as for the launched
   * browser's executor; the client's roots and workspace come with each call that needs them (DispatchRequest.folders).
   */
  extensionFiles?: NodeFileAccessOptions | undefined;
}

export interface ResolvedOptions {
  router: SessionRouter;
  localExecutor: LocalExecutor | undefined;
  cluster: ClusterNode | undefined;
  version: string;
  allowedHosts: Set<string>;
  corsOrigins: Set<string>;
  extensionOrigins: Set<string>;
  verifier: TokenVerifier | undefined;
  pairingSecret: Uint8Array | undefined;
  holdProofsFor: string | undefined;
  holdProofRenewMs: number;
  stateSecret: Uint8Array;
  heartbeatMs: number;
  helloTimeoutMs: number;
  gracePeriodMs: number;
  commandEndpoints: boolean;
  sessionSettings: SessionSettings | undefined;
  extensionFiles: NodeFileAccess | undefined;
}

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError(`"${name}" must be a positive number of milliseconds`);
  }
  return value;
}

function strings(value: string[] | undefined, name: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '')) {
    throw new InvalidArgumentError(`"${name}" must be an array of non-empty strings`);
  }
  return value;
}

/** At most the protocol's renewal: the other instances believe a connected browser's proof for four of them. */
function holdProofRenewOption(ms: number | undefined): number {
  const renewMs = positive(ms, 'holdProofRenewMs', HOLD_PROOF_RENEW_MS);
  if (renewMs > HOLD_PROOF_RENEW_MS) throw new InvalidArgumentError(`"holdProofRenewMs" must be at most ${HOLD_PROOF_RENEW_MS} ms`);
  return renewMs;
}

/** In a cluster, its instance id: proofs naming another would make every other instance ignore this one's entries. */
function holdProofsForOption(given: string | undefined, instanceId: string | undefined): string | undefined {
  if (given !== undefined && instanceId !== undefined && given !== instanceId) {
    throw new InvalidArgumentError(`"holdProofsFor" must be the cluster's instance id (${instanceId}) in a cluster; leave it out`);
  }
  return given ?? instanceId;
}

function pairingSecretOption(secret: Uint8Array | undefined): Uint8Array | undefined {
  if (secret === undefined) return undefined;
  if (!(secret instanceof Uint8Array) || secret.byteLength < 32) {
    throw new InvalidArgumentError('"pairingSecret" must be at least 32 random bytes (newPairingSecret() from @browsermcp/protocol)');
  }
  return secret;
}

/** Checks and defaults the options once, at registration; a bad option fails here with a message naming the fix. */
export function resolveOptions(options: DaemonAppOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null || typeof options.router?.dispatch !== 'function') {
    throw new InvalidArgumentError('"router" must be a SessionRouter');
  }
  const extensionIds = options.extensionIds === undefined ? [EXTENSION_ID] : strings(options.extensionIds, 'extensionIds');
  for (const id of extensionIds) {
    if (!EXTENSION_ID_PATTERN.test(id)) {
      throw new InvalidArgumentError(`extension id "${id}" is not a Chrome extension id (32 letters a-p, from chrome://extensions)`);
    }
  }
  const origins = strings(options.corsOrigins, 'corsOrigins');
  for (const origin of origins) {
    if (origin === '*' || new URL(origin, 'invalid://').origin !== origin.replace(/\/$/, '')) {
      throw new InvalidArgumentError(`allowed origin "${origin}" must be an exact origin such as https://app.example.com ("*" is not allowed)`);
    }
  }
  const hosts = strings(options.allowedHosts, 'allowedHosts');
  if (options.verifier !== undefined && typeof options.verifier?.verify !== 'function') {
    throw new InvalidArgumentError('"verifier" must have a verify(token) method');
  }
  return {
    router: options.router,
    localExecutor: options.localExecutor,
    cluster: options.cluster,
    version: options.version ?? '0.0.0',
    // Names only: a host matches on any port, so "relay.example.com:443" and "relay.example.com" mean the same.
    allowedHosts: allowedHostNames(hosts),
    corsOrigins: new Set(origins.map((o) => o.replace(/\/$/, '').toLowerCase())),
    extensionOrigins: new Set(extensionIds.map((id) => `chrome-extension://${id}`)),
    verifier: options.verifier,
    pairingSecret: pairingSecretOption(options.pairingSecret),
    holdProofsFor: holdProofsForOption(options.holdProofsFor, options.cluster?.instanceId),
    holdProofRenewMs: holdProofRenewOption(options.holdProofRenewMs),
    stateSecret: options.stateSecret ?? options.cluster?.stateSecret ?? randomBytes(32),
    heartbeatMs: positive(options.heartbeatMs, 'heartbeatMs', DEFAULT_HEARTBEAT_MS),
    helloTimeoutMs: positive(options.helloTimeoutMs, 'helloTimeoutMs', DEFAULT_HELLO_TIMEOUT_MS),
    // One grace period: a disconnected extension stays listed exactly as long as the router keeps its sessions.
    gracePeriodMs: options.router.gracePeriodMs,
    commandEndpoints: options.commandEndpoints ?? true,
    sessionSettings: options.sessionSettings,
    extensionFiles: options.extensionFiles
      ? new NodeFileAccess({ ...options.extensionFiles, sessionOwner: options.extensionFiles.sessionOwner ?? sessionFilesOwner(options.router) })
      : undefined,
  };
}
