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

  /**
   * Queues `run`. When `cancel.signal` aborts before the task starts, it leaves the queue at once, rejected with
   * `cancel.error()`; once started, the task itself answers the signal.
   */
  push<T>(run: () => Promise<T>, cancel?: { signal: AbortSignal; error: () => Error }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const task: QueuedTask = { run, resolve: resolve as (value: unknown) => void, reject };
      if (cancel) {
        const leave = () => {
          const i = this.#waiting.indexOf(task);
          if (i < 0) return;
          this.#waiting.splice(i, 1);
          reject(cancel.error());
          if (!this.#running && this.#waiting.length === 0) this.#onIdle?.();
        };
        cancel.signal.addEventListener('abort', leave, { once: true });
        task.run = () => {
          cancel.signal.removeEventListener('abort', leave);
          return run();
        };
      }
      this.#waiting.push(task);
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
