import { parseHelloPayload, type HelloPayload } from '@browsermcp/protocol';
import { browserIdOf } from '../cluster/hold-proofs.js';

/** Checks a hello payload field by field (the protocol's schema); returns the reason it is bad, or the payload. */
export function parseHello(payload: unknown): HelloPayload | string {
  const hello = parseHelloPayload(payload);
  return hello.ok ? hello.value : hello.message;
}

/**
 * A well-formed hello this daemon still refuses, and why: an id that is not its key's (a browser's id is its key's
 * hash, browser-key.ts), or no key where hold proofs are asked (a cluster). Undefined when it is accepted.
 */
export function helloRefusal(hello: HelloPayload, holdProofs: boolean): string | undefined {
  if (hello.key !== undefined && browserIdOf(hello.key) !== hello.browserId) {
    return `browserId ${hello.browserId} is not its key's: a browser's id is the SHA-256 of its key`;
  }
  // (a close reason holds 123 bytes)
  if (holdProofs && hello.key === undefined) return 'this extension has no browser key, which a cluster of daemons needs: update the extension';
  return undefined;
}
