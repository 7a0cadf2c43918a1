import { createPublicKey, hkdfSync, type KeyObject } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { InvalidArgumentError, UnauthorizedError } from '../errors.js';
import { formatDuration } from '../router/duration.js';

/** Who a valid token says the caller is. */
export interface TokenIdentity {
  readonly userId: string;
}

export interface TokenVerifier {
  verify(token: string): Promise<TokenIdentity>;
  /**
   * A key for `purpose` derived from the daemons' shared token secret (HS256 only): something only a holder of that
   * secret can make, such as a cluster daemon's word that it checked a user's token. Absent for a public key, which
   * any daemon may hold without being able to sign.
   */
  readonly derivedKey?: (purpose: string) => Uint8Array;
}

function secretKey(secret: string | Uint8Array): Uint8Array {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret.trim()) : secret;
  // RFC 7518 §3.2: an HS256 key must be at least as long as the hash (32 bytes).
  if (key.byteLength < 32) {
    throw new InvalidArgumentError('the auth secret must be at least 32 bytes; generate one with `openssl rand -hex 32`');
  }
  return key;
}

/** The longest a token may live (its `exp` from now) unless the daemon says otherwise: 90 days. */
export const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 90 * 24 * 3600;

/** What a token must say besides its signature. */
export interface TokenRules {
  /** The longest a token may still live (`exp` minus now), in seconds; a token past it is refused. Default 90 days. */
  maxLifetimeSeconds?: number | undefined;
  /** The `aud` a token must name (a hosted relay's own name), when set. */
  audience?: string | undefined;
  /** The `iss` a token must name (who signs them), when set. */
  issuer?: string | undefined;
}

/** Verifies HS256 JWTs whose `sub` is the user id. Every failure is an UnauthorizedError that says what to do. */
export function hs256Verifier(secret: string | Uint8Array, rules: TokenRules = {}): TokenVerifier {
  const key = secretKey(secret);
  // Worked out once per purpose: some are asked for on every call (an HTTP caller's router ids).
  const derived = new Map<string, Uint8Array>();
  return {
    ...jwtVerifier(key, 'HS256', rules),
    // HKDF: a key of its own per purpose, from which neither the secret nor a token can be worked back.
    derivedKey: (purpose) => {
      let made = derived.get(purpose);
      if (made === undefined) {
        made = new Uint8Array(hkdfSync('sha256', key, 'browsermcp', purpose, 32));
        derived.set(purpose, made);
      }
      return made;
    },
  };
}

/**
 * Verifies JWTs signed by someone else's private key (an identity provider, a hosted relay): RS256 for an RSA
 * public key, ES256 for a P-256 one, given as PEM (SPKI).
 */
export function publicKeyVerifier(pem: string, rules: TokenRules = {}): TokenVerifier {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new InvalidArgumentError(`the auth public key is not a PEM public key: ${(error as Error).message}`);
  }
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (type === 'rsa') return jwtVerifier(key, 'RS256', rules);
  if (type === 'ec' && curve === 'prime256v1') return jwtVerifier(key, 'ES256', rules);
  throw new InvalidArgumentError(`the auth public key must be RSA (RS256) or EC P-256 (ES256), not ${type}${curve ? ` ${curve}` : ''}`);
}

function jwtVerifier(key: Uint8Array | KeyObject, algorithm: 'HS256' | 'RS256' | 'ES256', rules: TokenRules): TokenVerifier {
  const maxLifetime = rules.maxLifetimeSeconds ?? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS;
  if (!Number.isInteger(maxLifetime) || maxLifetime <= 0)
    throw new InvalidArgumentError('the longest token lifetime must be a positive whole number of seconds');
  return {
    async verify(token) {
      if (typeof token !== 'string' || token === '') {
        throw new UnauthorizedError('an access token is required; create one with `browsermcp-daemon token --user <id> --secret-file <file>`');
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, key, {
          algorithms: [algorithm],
          // A token without an expiry would be good forever, however it leaked.
          requiredClaims: ['exp'],
          ...(rules.audience !== undefined ? { audience: rules.audience } : {}),
          ...(rules.issuer !== undefined ? { issuer: rules.issuer } : {}),
        }));
      } catch (error) {
        throw new UnauthorizedError(describeJoseError(error, algorithm));
      }
      const { sub, exp } = payload;
      if (typeof exp === 'number' && exp - Math.floor(Date.now() / 1000) > maxLifetime) {
        throw new UnauthorizedError(
          `the access token lives longer than this daemon accepts (at most ${formatDuration(maxLifetime * 1000)}, --auth-max-token-lifetime); create one with a shorter --ttl`,
        );
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
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'exp') return 'the access token has no expiry ("exp"): tokens must expire; create one with `browsermcp-daemon token`';
    if (error.claim === 'aud') return 'the access token is not for this daemon (its "aud" is not the daemon\'s --auth-audience)';
    if (error.claim === 'iss') return 'the access token comes from another issuer (its "iss" is not the daemon\'s --auth-issuer)';
    return `the access token is not valid yet or has a bad claim: ${error.message}`;
  }
  return 'the access token is not a valid JWT';
}

export interface SignTokenOptions {
  userId: string;
  secret: string | Uint8Array;
  /** Lifetime in seconds; default 30 days. */
  ttlSeconds?: number;
  /** The `aud` claim, for a daemon with --auth-audience. */
  audience?: string | undefined;
  /** The `iss` claim, for a daemon with --auth-issuer. */
  issuer?: string | undefined;
}

/** An HS256 token for `userId`, as `browsermcp-daemon token` prints it. */
export async function signToken(options: SignTokenOptions): Promise<string> {
  const { userId, ttlSeconds = 30 * 24 * 3600 } = options;
  if (typeof userId !== 'string' || userId === '') throw new InvalidArgumentError('the user id must be a non-empty string');
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) throw new InvalidArgumentError('the ttl must be a positive whole number of seconds');
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds);
  if (options.audience !== undefined) jwt.setAudience(options.audience);
  if (options.issuer !== undefined) jwt.setIssuer(options.issuer);
  return jwt.sign(secretKey(options.secret));
}
