import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, RecordSigner, signedBy, unsigned } from '../../src/cluster/record-signatures';
import type { SessionRecord } from '../../src/router/store';

const record: SessionRecord = {
  sessionId: 's-1',
  executorId: 'alice-laptop',
  clientName: 'Claude Code',
  agent: 'API key 3f9a12cd',
  userId: 'alice',
  account: 'acct-1',
  servedBy: 'a',
  settings: { allowedOrigins: ['https://example.com'], maxTabs: 5 },
};

describe('session record signatures', () => {
  it("verify with the signer's key only, over every claim but the current tab", () => {
    const a = new RecordSigner();
    const b = new RecordSigner();
    const signed = a.sign(record);
    expect(signedBy(signed, a.publicKey)).toBe(true);
    expect(signedBy(signed, b.publicKey)).toBe(false);
    expect(unsigned(signed)).toEqual(record);
    // The browser's instance writes the current tab: that does not break the signature.
    expect(signedBy({ ...signed, currentTabId: '7' }, a.publicKey)).toBe(true);
    // Anything else changed does, and so does a missing or garbled signature or key.
    for (const changed of [
      { servedBy: 'b' },
      { userId: 'mallory' },
      { agent: 'Trusted helper' },
      { executorId: 'bob-laptop' },
      { settings: { allowedOrigins: [], maxTabs: 5 } },
      { account: undefined },
    ])
      expect(signedBy({ ...signed, ...changed }, a.publicKey), JSON.stringify(changed)).toBe(false);
    expect(signedBy(unsigned(signed), a.publicKey)).toBe(false);
    expect(signedBy({ ...signed, signature: 'not-a-signature' }, a.publicKey)).toBe(false);
    expect(signedBy(signed, 'not-a-key')).toBe(false);
    // Signing again replaces the signature (a take-up writes the record with the new server's).
    expect(signedBy(b.sign({ ...signed, servedBy: 'b' }), b.publicKey)).toBe(true);
  });

  it('reads the same claims in any key order (a record read back from JSON is the record written)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const reversed = Object.fromEntries(Object.entries(value).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(value));
        expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(canonicalJson(value));
      }),
    );
  });
});
