interface QueuedTask {
  run: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs tasks one at a time in the order they were pushed: one session's commands must not overtake each other,
 * because the second usually depends on what the first did to the page.
 */
export class SerialQueue {
  readonly #waiting: QueuedTask[] = [];
  #running = false;
  readonly #onIdle: (() => void) | undefined;

  /** `onIdle` runs each time the last task settles and nothing waits, so the owner can drop an unused queue. */
  constructor(onIdle?: () => void) {
    this.#onIdle = onIdle;
  }

  /** Tasks waiting plus the one running. */
  get size(): number {
    return this.#waiting.length + (this.#running ? 1 : 0);
  }

  push<T>(run: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ run, resolve: resolve as (value: unknown) => void, reject });
      this.#next();
    });
  }

  /** Rejects every task that has not started; the running one settles on its own. */
  rejectWaiting(error: Error): void {
    for (const task of this.#waiting.splice(0)) task.reject(error);
  }

  #next(): void {
    if (this.#running) return;
    const task = this.#waiting.shift();
    if (task === undefined) {
      this.#onIdle?.();
      return;
    }
    this.#running = true;
    task
      .run()
      .then(task.resolve, task.reject)
      .finally(() => {
        this.#running = false;
        this.#next();
      });
  }
}
