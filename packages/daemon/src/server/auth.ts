import { createPublicKey, type KeyObject } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { InvalidArgumentError, UnauthorizedError } from '../errors.js';

/** Who a valid token says the caller is. */
export interface TokenIdentity {
  readonly userId: string;
}

export interface TokenVerifier {
  verify(token: string): Promise<TokenIdentity>;
}

function secretKey(secret: string | Uint8Array): Uint8Array {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret.trim()) : secret;
  // RFC 7518 §3.2: an HS256 key must be at least as long as the hash (32 bytes).
  if (key.byteLength < 32) {
    throw new InvalidArgumentError('the auth secret must be at least 32 bytes; generate one with `openssl rand -hex 32`');
  }
  return key;
}

/** Verifies HS256 JWTs whose `sub` is the user id. Every failure is an UnauthorizedError that says what to do. */
export function hs256Verifier(secret: string | Uint8Array): TokenVerifier {
  return jwtVerifier(secretKey(secret), 'HS256');
}

/**
 * Verifies JWTs signed by someone else's private key (an identity provider, a hosted relay): RS256 for an RSA
 * public key, ES256 for a P-256 one, given as PEM (SPKI).
 */
export function publicKeyVerifier(pem: string): TokenVerifier {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new InvalidArgumentError(`the auth public key is not a PEM public key: ${(error as Error).message}`);
  }
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (type === 'rsa') return jwtVerifier(key, 'RS256');
  if (type === 'ec' && curve === 'prime256v1') return jwtVerifier(key, 'ES256');
  throw new InvalidArgumentError(`the auth public key must be RSA (RS256) or EC P-256 (ES256), not ${type}${curve ? ` ${curve}` : ''}`);
}

function jwtVerifier(key: Uint8Array | KeyObject, algorithm: 'HS256' | 'RS256' | 'ES256'): TokenVerifier {
  return {
    async verify(token) {
      if (typeof token !== 'string' || token === '') {
        throw new UnauthorizedError('an access token is required; create one with `browsermcp-daemon token --user <id> --secret-file <file>`');
      }
      let sub: unknown;
      try {
        ({ payload: { sub } } = await jwtVerify(token, key, { algorithms: [algorithm] }));
      } catch (error) {
        throw new UnauthorizedError(describeJoseError(error, algorithm));
      }
      if (typeof sub !== 'string' || sub === '') throw new UnauthorizedError('the access token has no "sub" (user id) claim');
      return { userId: sub };
    },
  };
}

function describeJoseError(error: unknown, algorithm: string): string {
  if (error instanceof joseErrors.JWTExpired) return 'the access token has expired; create a new one with `browsermcp-daemon token`';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return algorithm === 'HS256'
      ? "the access token's signature does not match this daemon's secret; create it with the daemon's --auth-secret-file"
      : "the access token's signature does not match this daemon's public key";
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return `the access token must be signed with ${algorithm}`;
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `the access token is not valid yet or has a bad claim: ${error.message}`;
  return 'the access token is not a valid JWT';
}

export interface SignTokenOptions {
  userId: string;
  secret: string | Uint8Array;
  /** Lifetime in seconds; default 30 days. */
  ttlSeconds?: number;
}

/** An HS256 token for `userId`, as `browsermcp-daemon token` prints it. */
export async function signToken(options: SignTokenOptions): Promise<string> {
  const { userId, ttlSeconds = 30 * 24 * 3600 } = options;
  if (typeof userId !== 'string' || userId === '') throw new InvalidArgumentError('the user id must be a non-empty string');
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) throw new InvalidArgumentError('the ttl must be a positive whole number of seconds');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(secretKey(options.secret));
}
