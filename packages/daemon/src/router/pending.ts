import type { CommandEnvelope, ResponseEnvelope } from '@browsermcp/protocol';
import { CommandFailedError, CommandTimeoutError } from '../errors';
import { formatDuration } from './duration';

/** A command that was handed to an executor and waits for its response. */
export interface PendingCommand {
  readonly command: CommandEnvelope;
  readonly executorId: string;
}

interface Entry extends PendingCommand {
  timer: ReturnType<typeof setTimeout>;
  readonly resolve: (response: ResponseEnvelope) => void;
  readonly reject: (error: Error) => void;
}

export type SettleResult = 'settled' | 'unknown' | 'wrong-executor';

/** Commands in flight, keyed by wireId, each with its own timeout. */
export class PendingCommands {
  readonly #entries = new Map<string, Entry>();

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Registers `command` before it is sent (an in-process executor may answer from inside send) and resolves with
   * its response. After `timeoutMs` it rejects with a Timeout error and forgets the command, so a late response is
   * dropped and the session's queue moves on.
   */
  wait(command: CommandEnvelope, executorId: string, timeoutMs: number): Promise<ResponseEnvelope> {
    return new Promise<ResponseEnvelope>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(command.wireId, new CommandTimeoutError(command.name, formatDuration(timeoutMs)));
      }, timeoutMs);
      // A command in flight is no reason to keep the process alive at shutdown.
      timer.unref?.();
      this.#entries.set(command.wireId, { command, executorId, timer, resolve, reject });
    });
  }

  settle(executorId: string, response: ResponseEnvelope): SettleResult {
    const entry = this.#entries.get(response.wireId);
    if (entry === undefined) return 'unknown';
    // One browser must not be able to answer (or guess) another browser's commands.
    if (entry.executorId !== executorId) return 'wrong-executor';
    this.#remove(entry);
    if (response.sessionId !== entry.command.sessionId) {
      entry.reject(new CommandFailedError(entry.command.name, 'the browser answered for another session'));
    } else {
      entry.resolve(response);
    }
    return 'settled';
  }

  fail(wireId: string, error: Error): boolean {
    const entry = this.#entries.get(wireId);
    if (entry === undefined) return false;
    this.#remove(entry);
    entry.reject(error);
    return true;
  }

  /** Fails every command `select` picks, each with a fresh error from `error`; returns how many. */
  failWhere(select: (pending: PendingCommand) => boolean, error: (pending: PendingCommand) => Error): number {
    let count = 0;
    for (const entry of [...this.#entries.values()]) {
      if (!select(entry)) continue;
      this.#remove(entry);
      entry.reject(error(entry));
      count += 1;
    }
    return count;
  }

  /**
   * Restarts the timeout of every command `select` picks at `ms` from now (the browser says they wait for the
   * person); returns how many.
   */
  extendWhere(select: (pending: PendingCommand) => boolean, ms: number): number {
    let count = 0;
    for (const entry of this.#entries.values()) {
      if (!select(entry)) continue;
      clearTimeout(entry.timer);
      entry.timer = setTimeout(() => {
        this.fail(entry.command.wireId, new CommandTimeoutError(entry.command.name, formatDuration(ms)));
      }, ms);
      entry.timer.unref?.();
      count += 1;
    }
    return count;
  }

  get(wireId: string): PendingCommand | undefined {
    return this.#entries.get(wireId);
  }

  #remove(entry: Entry): void {
    clearTimeout(entry.timer);
    this.#entries.delete(entry.command.wireId);
  }
}
