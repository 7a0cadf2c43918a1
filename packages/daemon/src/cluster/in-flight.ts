/**
 * Requests this instance has in flight to other instances, by the instance asked: when a beat finds one dead, its
 * requests fail at once instead of each waiting for its timeout (node.ts's heartbeat).
 */
export class InFlightRequests {
  /** Per instance asked: how to fail each request, and the browser it was for. */
  readonly #byInstance = new Map<string, Map<(error: Error) => void, string>>();

  /** Tracks a request for `executorId` on `instanceId`: `lost` rejects if the instance is found dead; call `done` after. */
  track(instanceId: string, executorId: string): { lost: Promise<never>; done(): void } {
    let lose!: (error: Error) => void;
    const lost = new Promise<never>((_resolve, reject) => {
      lose = reject;
    });
    const waiting = this.#byInstance.get(instanceId) ?? new Map<(error: Error) => void, string>();
    waiting.set(lose, executorId);
    this.#byInstance.set(instanceId, waiting);
    const done = () => {
      waiting.delete(lose);
      if (waiting.size === 0 && this.#byInstance.get(instanceId) === waiting) this.#byInstance.delete(instanceId);
    };
    return { lost, done };
  }

  /** The instances asked something that has not been answered yet. */
  instances(): string[] {
    return [...this.#byInstance.keys()];
  }

  /** Fails every request in flight on `instanceId`, each with the error `errorFor` gives for its browser. */
  failAll(instanceId: string, errorFor: (executorId: string) => Error): void {
    const waiting = this.#byInstance.get(instanceId);
    this.#byInstance.delete(instanceId);
    for (const [lose, executorId] of waiting ?? []) lose(errorFor(executorId));
  }
}
