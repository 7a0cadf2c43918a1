/**
 * browsermcp-daemon's own settings that read as they are declared (setting-table.ts), each declared once: token
 * checks, the per-user session cap, the cluster's NATS connection and whether there is a local browser. The options
 * (cli-args.ts places them in --help's order), the reads and their types come from this table; a test walks it
 * (test/daemon-settings.test.ts). Values checked against each other (a secret and a public key, the NATS URLs, an
 * instance id's form, a file that must be readable) are checked in cli-args.ts once read.
 */
import { DEFAULT_MAX_SESSIONS_PER_USER } from './router/index.js';
import { DEFAULT_MAX_TOKEN_LIFETIME_SECONDS } from './server/auth.js';
import type { SettingEntry } from './setting-table.js';

export const DAEMON_SETTINGS = {
  authSecretFile: {
    kind: 'path',
    flag: 'auth-secret-file',
    arg: 'file',
    serverFile: true,
    help: 'file with the HS256 secret (≥ 32 bytes) that access tokens are signed with (default: none: no auth)',
  },
  authPublicKeyFile: {
    kind: 'path',
    flag: 'auth-public-key-file',
    arg: 'file',
    serverFile: true,
    help: 'PEM public key (RSA → RS256, EC P-256 → ES256) of whoever signs the access tokens, instead of a shared secret (default: none)',
  },
  authMaxTokenLifetime: {
    kind: 'text',
    flag: 'auth-max-token-lifetime',
    arg: 'duration',
    default: `${DEFAULT_MAX_TOKEN_LIFETIME_SECONDS / 86_400}d`,
    help: 'the longest an access token may still live (its "exp" from now): seconds, or a number with s, m, h or d',
  },
  authAudience: {
    kind: 'text',
    flag: 'auth-audience',
    arg: 'aud',
    help: 'the "aud" every access token must name, e.g. this relay\'s URL (default: none: not checked)',
  },
  maxSessionsPerUser: {
    kind: 'int',
    flag: 'max-sessions-per-user',
    arg: 'n',
    min: 1,
    max: 100_000,
    default: DEFAULT_MAX_SESSIONS_PER_USER,
    help: 'most sessions one user (the "sub" of their token) may have open at once; more are refused (429)',
  },
  authIssuer: {
    kind: 'text',
    flag: 'auth-issuer',
    arg: 'iss',
    help: 'the "iss" every access token must name: whoever signs them (default: none: not checked)',
  },
  nats: {
    kind: 'text',
    flag: 'nats',
    arg: 'urls',
    help: 'join a cluster of daemons on NATS with JetStream, e.g. nats://127.0.0.1:4222 (comma-separated for several servers) (default: none: state stays in this process)',
  },
  instanceId: {
    kind: 'text',
    flag: 'instance-id',
    arg: 'id',
    help: "this daemon's id in the cluster: 1-64 letters, digits, - or _ (default: random, printed at start)",
  },
  natsNkeySeedFile: {
    kind: 'path',
    flag: 'nats-nkey-seed-file',
    arg: 'file',
    serverFile: true,
    help: "file with this daemon's NATS nkey seed, as `browsermcp-daemon nats-config` writes it (default: none)",
  },
  natsCredsFile: {
    kind: 'path',
    flag: 'nats-creds-file',
    arg: 'file',
    serverFile: true,
    help: 'NATS .creds file (user JWT and seed) for a server in operator mode (default: none)',
  },
  natsToken: {
    kind: 'text',
    flag: 'nats-token',
    arg: 'token',
    help: "NATS token; prefer the environment variable, which ps does not show (default: none; a user and password may sit in --nats's URL)",
  },
  natsTlsCa: { kind: 'path', flag: 'nats-tls-ca', arg: 'file', serverFile: true, help: "PEM CA certificate that signed NATS's (default: the system's)" },
  natsTlsCert: {
    kind: 'path',
    flag: 'nats-tls-cert',
    arg: 'file',
    serverFile: true,
    help: 'PEM client certificate, for a NATS that asks for one; with --nats-tls-key (default: none)',
  },
  natsTlsKey: { kind: 'path', flag: 'nats-tls-key', arg: 'file', serverFile: true, help: "the client certificate's PEM key (default: none)" },
  natsAllowAnonymous: {
    kind: 'switch',
    flag: 'nats-allow-anonymous',
    help: 'join a NATS that lets anyone connect without credentials: whoever reaches it could read and drive every session (default: refused)',
  },
  local: { kind: 'switch', flag: 'local', default: true, help: 'run without the local browser: extensions only (default: a local browser)' },
} as const satisfies Record<string, SettingEntry>;

export type DaemonSettingKey = keyof typeof DAEMON_SETTINGS;
