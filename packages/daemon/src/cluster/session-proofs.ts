/** Sessions whose client's token is remembered (the oldest forgotten past it). */
const MAX_PROOFS = 10_000;

/**
 * The access token of the client each session this instance serves came with (a proxy client's handshake, an HTTP
 * call's bearer): sent with the requests that open the session on another instance's browser or that serve it from
 * here for the first time, where it is checked (peer-requests.ts). Kept in memory only: never in the shared store,
 * which every daemon may read.
 */
export class SessionProofs {
  readonly #tokens = new Map<string, string>();

  set(sessionId: string, token: string): void {
    this.#tokens.delete(sessionId);
    this.#tokens.set(sessionId, token);
    if (this.#tokens.size > MAX_PROOFS) this.#tokens.delete(this.#tokens.keys().next().value!);
  }

  get(sessionId: string): string | undefined {
    return this.#tokens.get(sessionId);
  }

  delete(sessionId: string): void {
    this.#tokens.delete(sessionId);
  }
}
