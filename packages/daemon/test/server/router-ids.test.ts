import { expect, it } from 'vitest';
import { hs256Verifier } from '../../src/index.js';
import { routerSessionId } from '../../src/server/caller.js';

// The router's id of a session an HTTP caller names (pure logic; the store holding it is in trust.test.ts).
const secret = 'a-test-secret-that-is-at-least-32-bytes-long';

it("keeps each user's session ids apart without naming the user: a keyed hash, the same on every daemon sharing the secret", () => {
  const a = routerSessionId('alice', 's1', hs256Verifier(secret));
  expect(a).toMatch(/^u\.[A-Za-z0-9_-]{22}\.s1$/);
  expect(a).not.toContain('alice');
  expect(a).not.toContain(Buffer.from('alice').toString('base64url'));
  // Another daemon with the same secret names it alike; another user, or another secret, differently.
  expect(routerSessionId('alice', 's1', hs256Verifier(secret))).toBe(a);
  expect(routerSessionId('bob', 's1', hs256Verifier(secret))).not.toBe(a);
  expect(routerSessionId('alice', 's1', hs256Verifier(`${secret}-other`))).not.toBe(a);
  // Without a shared secret (a public key), a plain hash; without auth, the caller's own id.
  expect(routerSessionId('alice', 's1')).toMatch(/^u\.[A-Za-z0-9_-]{22}\.s1$/);
  expect(routerSessionId('alice', 's1')).not.toBe(a);
  expect(routerSessionId(null, 's1')).toBe('s1');
});
