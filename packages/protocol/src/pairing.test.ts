import { describe, expect, it } from 'vitest';
import {
  decodePairingSecret,
  encodePairingSecret,
  formatPairingCode,
  isPairingProof,
  newPairingNonce,
  newPairingSecret,
  pairingAddressProblem,
  pairingProof,
  parsePairingCode,
  PAIRING_CODE_PREFIX,
} from './pairing';

describe('pairing codes', () => {
  it('carry the secret and the daemon URL, and read back from a paste with spaces or quotes', () => {
    const secret = newPairingSecret();
    const code = formatPairingCode({ url: 'ws://127.0.0.1:8791/extension', secret });
    expect(code).toMatch(new RegExp(`^${PAIRING_CODE_PREFIX}\\.[A-Za-z0-9_-]{43}\\.[A-Za-z0-9_-]+$`));
    for (const pasted of [code, `  ${code}\n`, `"${code}"`]) {
      const parsed = parsePairingCode(pasted);
      expect(parsed.ok && parsed.value.url).toBe('ws://127.0.0.1:8791/extension');
      expect(parsed.ok && [...parsed.value.secret]).toEqual([...secret]);
    }
  });

  it.each([
    ['hello', 'This is not a pairing code'],
    [`${PAIRING_CODE_PREFIX}.abc`, 'cut short'],
    [`${PAIRING_CODE_PREFIX}.abc.d3M6Ly94`, 'secret is damaged'],
    [`${PAIRING_CODE_PREFIX}.${'A'.repeat(43)}.aHR0cDovL3g`, 'daemon address is damaged'],
    [`${PAIRING_CODE_PREFIX}.${'A'.repeat(43)}.%%%`, 'daemon address is damaged'],
  ])('refuses %j, saying what is wrong and what to copy', (text, why) => {
    const parsed = parsePairingCode(text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toContain(why);
    expect(!parsed.ok && parsed.message).toContain(`copy the whole pairing code browsermcp printed`);
  });

  it('keeps the secret in a file as text, and refuses text that is not one', () => {
    const secret = newPairingSecret();
    const read = decodePairingSecret(`${encodePairingSecret(secret)}\n`);
    expect(read.ok && [...read.value]).toEqual([...secret]);
    expect(decodePairingSecret('short').ok).toBe(false);
  });
});

describe('pairing proofs', () => {
  const nonces = { daemon: newPairingNonce(), extension: newPairingNonce(), address: 'ws://127.0.0.1:8765/extension' };

  it('prove the secret for these nonces and this address only, and each side only as itself', async () => {
    const secret = newPairingSecret();
    const proof = await pairingProof(secret, 'extension', nonces);
    expect(await isPairingProof(secret, 'extension', nonces, proof)).toBe(true);
    // Not another secret, not the other side, not another connection, nothing that is not a proof.
    expect(await isPairingProof(newPairingSecret(), 'extension', nonces, proof)).toBe(false);
    expect(await isPairingProof(secret, 'daemon', nonces, proof)).toBe(false);
    expect(await isPairingProof(secret, 'extension', { ...nonces, daemon: newPairingNonce() }, proof)).toBe(false);
    // Made for the address the extension dialled: a relay there cannot pass it on to a daemon at another.
    expect(await isPairingProof(secret, 'extension', { ...nonces, address: 'ws://127.0.0.1:9999/extension' }, proof)).toBe(false);
    for (const bad of [undefined, '', 'not base64!', 42]) expect(await isPairingProof(secret, 'extension', nonces, bad)).toBe(false);
  });
});

describe('the address a proof is made for', () => {
  it("is this daemon's own extension endpoint: loopback, its port, /extension", () => {
    for (const ok of ['ws://127.0.0.1:8765/extension', 'ws://localhost:8765/extension', 'ws://[::1]:8765/extension'])
      expect(pairingAddressProblem(ok, 8765)).toBeUndefined();
    expect(pairingAddressProblem('ws://127.0.0.1:8766/extension', 8765)).toContain('something else took the address it dialled');
    for (const bad of ['wss://127.0.0.1:8765/extension', 'ws://example.com:8765/extension', 'ws://127.0.0.1:8765/mcp', 'nonsense'])
      expect(pairingAddressProblem(bad, 8765)).toBeDefined();
  });
});
