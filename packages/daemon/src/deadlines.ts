/** setTimeout's limit: a longer delay would fire at once, so a far deadline is reached in steps. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * One timer per key, each with its deadline: the grace periods and idle expiries of the router, the extension
 * registry, kept browser states, proxy sessions kept for their client and the gateway's legacy SSE sessions all use
 * this one kind. Setting a key again
 * replaces its timer; timers never keep the process alive (a shutdown does not wait for a grace period).
 */
export class Deadlines<K> {
  readonly #timers = new Map<K, { deadline: number; timer: ReturnType<typeof setTimeout> }>();

  /** Runs `expire` once `ms` from now unless the key is cleared or set again first. */
  set(key: K, ms: number, expire: () => void): void {
    this.clear(key);
    const deadline = Date.now() + Math.max(0, ms);
    const arm = (): void => {
      const left = deadline - Date.now();
      const timer = setTimeout(
        () => {
          if (this.#timers.get(key)?.timer !== timer) return;
          if (deadline - Date.now() > 0) return arm();
          this.#timers.delete(key);
          expire();
        },
        Math.min(Math.max(0, left), MAX_DELAY_MS),
      );
      timer.unref?.();
      this.#timers.set(key, { deadline, timer });
    };
    arm();
  }

  /** When the key's timer fires (ms since the epoch), or undefined without one. */
  deadline(key: K): number | undefined {
    return this.#timers.get(key)?.deadline;
  }

  has(key: K): boolean {
    return this.#timers.has(key);
  }

  /** Drops the key's timer; true when there was one. */
  clear(key: K): boolean {
    const entry = this.#timers.get(key);
    if (!entry) return false;
    clearTimeout(entry.timer);
    this.#timers.delete(key);
    return true;
  }

  clearAll(): void {
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  get size(): number {
    return this.#timers.size;
  }
}
