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
});
