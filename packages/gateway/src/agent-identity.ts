import { createHash } from 'node:crypto';

/**
 * Who an agent is, for the person who approves it in their browser: what this gateway authenticated (its API key, as
 * a short fingerprint the key cannot be read back from), never the name the client gives itself. `owner` is how the
 * gateway keys its sessions: a hash of the caller's API key, 'no-key' without auth, 'stdio' for the stdio client.
 */
export function agentIdentity(owner: string | undefined): string | undefined {
  if (owner === undefined) return undefined;
  if (owner === 'no-key') return 'no API key (this gateway runs with --no-auth)';
  if (owner === 'stdio') return "this gateway's stdio client";
  return `API key ${createHash('sha256').update('browsermcp agent identity\0').update(owner).digest('hex').slice(0, 8)}`;
}

/** How the gateway names an API key's caller (its sessions, files and states): the key's SHA-256, in hex. */
export function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The identity of an API key as the person's popup shows it, from the key itself (for the banner; never the key). */
export function keyFingerprint(key: string): string {
  return agentIdentity(keyHash(key))!;
}
