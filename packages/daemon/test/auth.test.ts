import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { hs256Verifier, publicKeyVerifier, signToken } from '../src/index.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pem = (k: typeof rsa.publicKey) => k.export({ type: 'spki', format: 'pem' }).toString();

const sign = (alg: 'RS256' | 'ES256', key: typeof rsa.privateKey, sub = 'alice', exp = '1h') =>
  new SignJWT({}).setProtectedHeader({ alg }).setSubject(sub).setIssuedAt().setExpirationTime(exp).sign(key);

describe('token verifiers', () => {
  it('accepts RS256 tokens signed by the private half of an RSA public key', async () => {
    const verifier = publicKeyVerifier(pem(rsa.publicKey));
    await expect(verifier.verify(await sign('RS256', rsa.privateKey))).resolves.toEqual({ userId: 'alice' });
  });

  it('accepts ES256 tokens for an EC P-256 public key', async () => {
    const verifier = publicKeyVerifier(pem(ec.publicKey));
    await expect(verifier.verify(await sign('ES256', ec.privateKey, 'bob'))).resolves.toEqual({ userId: 'bob' });
  });

  it('refuses forged, expired and wrongly signed tokens with the reason', async () => {
    const verifier = publicKeyVerifier(pem(rsa.publicKey));
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await expect(verifier.verify(await sign('RS256', other.privateKey))).rejects.toThrow("signature does not match this daemon's public key");
    await expect(verifier.verify(await sign('RS256', rsa.privateKey, 'alice', '-1m'))).rejects.toThrow('has expired');
    const hs = await signToken({ userId: 'eve', secret: 'x'.repeat(32) });
    await expect(verifier.verify(hs)).rejects.toThrow('must be signed with RS256');
    await expect(verifier.verify('')).rejects.toThrow('an access token is required');
  });

  it('refuses a key that is not a usable public key', () => {
    expect(() => publicKeyVerifier('not a pem')).toThrow('is not a PEM public key');
    const ed = generateKeyPairSync('ed25519');
    expect(() => publicKeyVerifier(pem(ed.publicKey))).toThrow('must be RSA (RS256) or EC P-256 (ES256), not ed25519');
  });

  it('keeps HS256 secrets at 32 bytes or more', () => {
    expect(() => hs256Verifier('short')).toThrow('at least 32 bytes');
  });

  it('refuses a token that never expires, or lives longer than the daemon accepts, saying why', async () => {
    const secret = 'x'.repeat(32);
    const key = new TextEncoder().encode(secret);
    const verifier = hs256Verifier(secret);
    const forever = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('alice').setIssuedAt().sign(key);
    await expect(verifier.verify(forever)).rejects.toThrow('the access token has no expiry ("exp"): tokens must expire');
    await expect(verifier.verify(await signToken({ userId: 'alice', secret, ttlSeconds: 91 * 86400 }))).rejects.toThrow(
      'the access token lives longer than this daemon accepts (at most 90 days, --auth-max-token-lifetime)',
    );
    await expect(verifier.verify(await signToken({ userId: 'alice', secret, ttlSeconds: 90 * 86400 }))).resolves.toEqual({ userId: 'alice' });
    const strict = hs256Verifier(secret, { maxLifetimeSeconds: 3600 });
    await expect(strict.verify(await signToken({ userId: 'alice', secret, ttlSeconds: 2 * 3600 }))).rejects.toThrow(
      'at most 60 minutes, --auth-max-token-lifetime',
    );
  });

  it('checks the audience and issuer when the daemon names them', async () => {
    const secret = 'y'.repeat(32);
    const verifier = hs256Verifier(secret, { audience: 'wss://relay.example', issuer: 'https://id.example' });
    const token = (audience?: string, issuer?: string) => signToken({ userId: 'alice', secret, audience, issuer });
    await expect(verifier.verify(await token('wss://relay.example', 'https://id.example'))).resolves.toEqual({ userId: 'alice' });
    await expect(verifier.verify(await token('wss://other.example', 'https://id.example'))).rejects.toThrow(
      'the access token is not for this daemon (its "aud" is not the daemon\'s --auth-audience)',
    );
    await expect(verifier.verify(await token(undefined, 'https://id.example'))).rejects.toThrow('"aud"');
    await expect(verifier.verify(await token('wss://relay.example', 'https://evil.example'))).rejects.toThrow(
      'the access token comes from another issuer (its "iss" is not the daemon\'s --auth-issuer)',
    );
    // Without them, a token need not name either.
    await expect(hs256Verifier(secret).verify(await token())).resolves.toEqual({ userId: 'alice' });
  });
});
