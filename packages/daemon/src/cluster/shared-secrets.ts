import { randomBytes } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import { rethrowUnavailable } from './kv-unavailable.js';
import { live, MAX_CAS_ATTEMPTS } from './keys.js';
import { token } from './names.js';

/** How many bytes a shared secret has. */
const SECRET_BYTES = 32;

/**
 * The cluster's secret `name` (only the daemons may read the bucket), for what has no token secret to derive a key
 * from (`--auth-public-key-file`). Each daemon writes only its own key, `x.<instance>.<name>` (nats-config's
 * permissions), and the cluster's secret is the first one made (the lowest revision): the first daemon that asks makes
 * it, the others read it, and one daemon's NATS seed can neither replace nor delete the secret another daemon made.
 */
export async function sharedSecret(kv: KV, keys: (filter: string) => Promise<string[]>, self: string, name: string): Promise<Uint8Array> {
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    let first: { revision: number; secret: Buffer } | undefined;
    for (const key of await keys(`x.*.${token(name)}`)) {
      const entry = await kv.get(key);
      if (!live(entry)) continue;
      const secret = Buffer.from(entry.string(), 'base64url');
      if (secret.length === SECRET_BYTES && (first === undefined || entry.revision < first.revision)) first = { revision: entry.revision, secret };
    }
    if (first !== undefined) return first.secret;
    try {
      await kv.create(`x.${self}.${token(name)}`, randomBytes(SECRET_BYTES).toString('base64url'));
    } catch (error) {
      rethrowUnavailable(error);
      // made meanwhile (a second start under this id): read again
    }
  }
  throw new Error(`the cluster's ${name} secret could not be read or made; is the router bucket writable?`);
}
