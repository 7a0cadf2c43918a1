import { generateKeyPairSync } from 'node:crypto';
import { browserIdOf } from '@browsermcp/daemon';

/** A key for the no-op extension (workers/noop-extension.mjs), as the real extension has one: its id is the key's hash. */
export interface BenchBrowserKey {
  readonly browserId: string;
  /** The public key as the hello carries it (base64url of its 32 raw bytes). */
  readonly key: string;
  /** The private key (PKCS#8 DER), which the worker imports to sign the hold proofs a cluster asks for. */
  readonly pkcs8: Uint8Array;
}

export function benchBrowserKey(): BenchBrowserKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const key = publicKey.export({ format: 'jwk' }).x!;
  const browserId = browserIdOf(key)!;
  return { browserId, key, pkcs8: new Uint8Array(privateKey.export({ format: 'der', type: 'pkcs8' })) };
}
