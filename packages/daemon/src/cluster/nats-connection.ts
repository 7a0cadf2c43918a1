import { credsAuthenticator, nkeyAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';
import { InvalidArgumentError } from '../errors.js';
import { natsFailure } from './nats-errors.js';

/** How a daemon proves itself to NATS: at most one of these (a user and password may also sit in the URL). */
export interface NatsCredentials {
  readonly user?: string | undefined;
  readonly pass?: string | undefined;
  /** nats-server's `authorization { token }`. */
  readonly token?: string | undefined;
  /** An nkey seed (SU…): the server knows only its public key (`browsermcp-daemon nats-config` makes them). */
  readonly nkeySeed?: string | undefined;
  /** A .creds file's text (a user JWT and its seed), for a server in operator mode. */
  readonly creds?: string | undefined;
}

/** TLS to NATS: the CA that signed the server's certificate, and a client certificate when the server asks for one. */
export interface NatsTls {
  readonly caFile?: string | undefined;
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
}

export interface NatsConnectSettings {
  /** nats://host:port, comma-separated for several; a URL may carry user:password@. */
  readonly url: string;
  readonly credentials?: NatsCredentials | undefined;
  readonly tls?: NatsTls | undefined;
  /** Joins a NATS that lets anyone in (no authorization). Off by default: whoever reaches it would own every session. */
  readonly allowAnonymous?: boolean | undefined;
}

const USERINFO = /^([a-z]+:\/\/)([^@/]*)@/i;

/** The URLs as they may be printed: a password or token in them replaced by "***". */
export function redactNatsUrl(url: string): string {
  return url
    .split(',')
    .map((one) =>
      one.trim().replace(USERINFO, (_all, scheme: string, info: string) => {
        const colon = info.indexOf(':');
        return colon === -1 ? `${scheme}***@` : `${scheme}${info.slice(0, colon)}:***@`;
      }),
    )
    .join(',');
}

/** The servers without their user info, and the credentials the URLs carried (one set for all of them). */
function splitUrls(url: string): { servers: string[]; user?: string; pass?: string; token?: string } {
  const servers: string[] = [];
  let found: { user?: string; pass?: string; token?: string } | undefined;
  for (const one of url.split(',').map((s) => s.trim())) {
    const match = USERINFO.exec(one);
    servers.push(match ? one.replace(USERINFO, '$1') : one);
    if (!match) continue;
    const info = match[2]!;
    const colon = info.indexOf(':');
    const these =
      colon === -1 ? { token: decodeURIComponent(info) } : { user: decodeURIComponent(info.slice(0, colon)), pass: decodeURIComponent(info.slice(colon + 1)) };
    if (found !== undefined && JSON.stringify(found) !== JSON.stringify(these)) {
      throw new InvalidArgumentError('the --nats URLs carry different credentials: give them once (or in one URL)');
    }
    found = these;
  }
  return { servers, ...found };
}

/**
 * What is wrong with the settings before any connection is tried, in words naming the flags (the CLI's and the
 * library's one check): two kinds of credential, or half a client certificate.
 */
export function natsSettingsProblem(settings: NatsConnectSettings): string | undefined {
  let urls: ReturnType<typeof splitUrls>;
  try {
    urls = splitUrls(settings.url);
  } catch (error) {
    return (error as Error).message;
  }
  const { servers: _servers, ...inUrl } = urls;
  const given = { ...inUrl, ...settings.credentials };
  const kinds = [given.user ?? given.pass, given.token, given.nkeySeed, given.creds].filter((value) => value !== undefined);
  if (kinds.length > 1) {
    return 'NATS credentials are given twice: keep one of --nats-nkey-seed-file, --nats-creds-file, --nats-token and a user in --nats';
  }
  const { tls } = settings;
  if (tls && (tls.certFile === undefined) !== (tls.keyFile === undefined)) return 'a NATS client certificate needs both --nats-tls-cert and --nats-tls-key';
  return undefined;
}

/** What nats.js needs to connect as the settings say; fails with natsSettingsProblem's words first. */
export function natsConnectionOptions(settings: NatsConnectSettings, name: string, inboxPrefix: string): ConnectionOptions {
  const problem = natsSettingsProblem(settings);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  const { servers, ...inUrl } = splitUrls(settings.url);
  const given = { ...inUrl, ...settings.credentials };
  const { tls } = settings;
  const encoder = new TextEncoder();
  return {
    servers,
    name,
    inboxPrefix,
    ...(given.user !== undefined ? { user: given.user, pass: given.pass ?? '' } : {}),
    ...(given.token !== undefined ? { token: given.token } : {}),
    ...(given.nkeySeed !== undefined ? { authenticator: nkeyAuthenticator(encoder.encode(given.nkeySeed.trim())) } : {}),
    ...(given.creds !== undefined ? { authenticator: credsAuthenticator(encoder.encode(given.creds)) } : {}),
    ...(tls && Object.values(tls).some((v) => v !== undefined)
      ? { tls: { ...(tls.caFile ? { caFile: tls.caFile } : {}), ...(tls.certFile ? { certFile: tls.certFile, keyFile: tls.keyFile } : {}) } }
      : {}),
    // NATS restarts and network blips are waited out rather than ending the daemon.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  };
}

/** Whether the daemon was given any credential to show NATS. */
export function hasNatsCredentials(settings: NatsConnectSettings): boolean {
  const { servers: _servers, ...inUrl } = splitUrls(settings.url);
  return Object.values({ ...inUrl, ...settings.credentials }).some((value) => value !== undefined);
}

/** Why connecting failed, in words that name the fix, with no secret in them. */
export function natsConnectError(error: unknown, settings: NatsConnectSettings): Error {
  const where = redactNatsUrl(settings.url);
  const message = scrub(String((error as Error)?.message ?? error), settings);
  const failure = natsFailure(error);
  if (failure === 'authorization') {
    if (!hasNatsCredentials(settings)) {
      return new InvalidArgumentError(
        `NATS at ${where} needs credentials: give --nats-nkey-seed-file (browsermcp-daemon nats-config makes one per daemon), --nats-creds-file, --nats-token or a user and password in --nats`,
      );
    }
    return new InvalidArgumentError(
      `NATS at ${where} refused this daemon's credentials (${message}): check --nats-nkey-seed-file, --nats-creds-file, --nats-token or the user and password in --nats`,
    );
  }
  if (failure === 'tls') {
    return new InvalidArgumentError(`TLS to NATS at ${where} failed (${message}): check --nats-tls-ca, --nats-tls-cert and --nats-tls-key`);
  }
  return new InvalidArgumentError(`cannot reach NATS at ${where}: ${message}. Start nats-server (with -js) there, or fix --nats`);
}

/** The message with every secret of the settings taken out. */
function scrub(message: string, settings: NatsConnectSettings): string {
  const { servers: _servers, ...inUrl } = splitUrls(settings.url);
  let text = message.replaceAll(settings.url, redactNatsUrl(settings.url));
  for (const secret of [inUrl.pass, inUrl.token, settings.credentials?.pass, settings.credentials?.token, settings.credentials?.nkeySeed]) {
    if (secret) text = text.replaceAll(secret, '***');
  }
  return text;
}
