import { describe, expect, it } from 'vitest';
import { toBase64Url } from './base64url';
import { browserIdOfKey, exportBrowserKey, holdStatement, parseHoldProof, parseProveHold, signHold } from './browser-key';
import { parseHelloPayload } from './extension';

async function keyPair() {
  const pair = (await crypto.subtle.generateKey('Ed25519', false, ['sign', 'verify'])) as CryptoKeyPair;
  const key = await exportBrowserKey(pair.publicKey);
  return { pair, key };
}

describe('a browser key', () => {
  it("names the browser by its key's SHA-256, and nothing that is not a 32-byte key", async () => {
    const { key } = await keyPair();
    const id = await browserIdOfKey(key);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await browserIdOfKey(key)).toBe(id);
    expect(parseHelloPayload({ browserId: id, key, browser: 'Chrome 156', version: '1' }).ok).toBe(true);
    for (const bad of ['', key.slice(1), `${key}A`, key.replace(/^./, '+'), toBase64Url(new Uint8Array(33))]) {
      expect(await browserIdOfKey(bad)).toBeUndefined();
    }
    expect(parseHelloPayload({ browserId: id, key: key.slice(1), browser: 'x', version: '1' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('"payload.key": must be an Ed25519 public key'),
    });
  });

  it('signs that an instance holds it at an instant; the signature holds for that statement only', async () => {
    const { pair, key } = await keyPair();
    const id = (await browserIdOfKey(key))!;
    const sig = await signHold(pair.privateKey, id, 'daemon-a', 1_700_000_000_000, 'ivy');
    expect(parseHoldProof({ instance: 'daemon-a', at: 1_700_000_000_000, sig }).ok).toBe(true);
    const verify = (statement: Uint8Array<ArrayBuffer>) =>
      crypto.subtle.verify(
        'Ed25519',
        pair.publicKey,
        Uint8Array.from(atob(sig.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)),
        statement,
      );
    expect(await verify(holdStatement(id, 'daemon-a', 1_700_000_000_000, 'ivy'))).toBe(true);
    expect(await verify(holdStatement(id, 'daemon-b', 1_700_000_000_000, 'ivy'))).toBe(false);
    expect(await verify(holdStatement(id, 'daemon-a', 1_700_000_000_001, 'ivy'))).toBe(false);
    expect(await verify(holdStatement(id, 'daemon-a', 1_700_000_000_000, 'mallory'))).toBe(false);
    expect(await verify(holdStatement(id, 'daemon-a', 1_700_000_000_000, null))).toBe(false);
    // A user with spaces or dashes cannot make one statement read as another.
    expect(new TextDecoder().decode(holdStatement(id, 'a', 1, 'x 2 y'))).toMatch(/^bmcp-hold-1 \S+ a 1 [A-Za-z0-9_-]+$/);
    expect(parseHoldProof({ instance: 'daemon-a', at: 1, sig: sig.slice(2) })).toMatchObject({ ok: false });
    expect(parseProveHold({ instance: 'a', at: 1, user: null })).toMatchObject({ ok: true });
    expect(parseProveHold({ instance: '', at: 1, user: null })).toMatchObject({ ok: false });
    expect(parseProveHold({ instance: 'a b', at: 1, user: null })).toMatchObject({ ok: false });
    expect(parseProveHold({ instance: 'a', at: -1, user: null })).toMatchObject({ ok: false });
  });
});
