import type { CommandEnvelope, ResponseEnvelope } from '@browsermcp/protocol';
import { CommandCancelledError, CommandFailedError, isDaemonError } from '../errors';
import type { PendingCommands } from './pending';
import type { ClientFolders, Executor, RouterLogger } from './types';

/**
 * Hands one command to an executor and waits for its response (or its timeout, or the caller's abort): the one way
 * a command leaves the router, for its own sessions and for another cluster instance's.
 */
export class CommandSender {
  readonly #pending: PendingCommands;
  readonly #logger: RouterLogger;

  constructor(pending: PendingCommands, logger: RouterLogger) {
    this.#pending = pending;
    this.#logger = logger;
  }

  send(executor: Executor, command: CommandEnvelope, timeoutMs: number, signal?: AbortSignal, folders?: ClientFolders): Promise<ResponseEnvelope> {
    // Registered before send: an in-process executor may answer from inside send.
    const response = this.#pending.wait(command, executor.id, timeoutMs);
    this.#stopWhenAbandoned(executor, command, response, signal);
    const fail = (error: unknown): void => {
      // An executor that knows what went wrong (e.g. its socket just closed) says so with a daemon error of its own.
      if (isDaemonError(error)) return void this.#pending.fail(command.wireId, error);
      const reason = error instanceof Error ? error.message : String(error);
      this.#pending.fail(command.wireId, new CommandFailedError(command.name, reason, { cause: error }));
    };
    try {
      // An in-process executor's answer comes back here, not through the router again.
      Promise.resolve(executor.send(command, timeoutMs, folders)).then((answer) => {
        if (answer) this.settle(executor.id, answer);
      }, fail);
    } catch (error) {
      fail(error);
    }
    return response;
  }

  /** Settles the command a response answers. False (and logged) for a late, unknown or foreign response. */
  settle(executorId: string, response: ResponseEnvelope): boolean {
    const result = this.#pending.settle(executorId, response);
    if (result === 'settled') return true;
    this.#logger.warn(
      { executorId, wireId: response.wireId, name: response.name, reason: result },
      'dropped a response that no pending command of this executor waits for (it may have timed out)',
    );
    return false;
  }

  /**
   * A cancelled command is answered now (Cancelled) and the session's queue goes on; a cancelled or timed-out
   * command is stopped in the browser too, so that its work does not go on under the session's next command.
   */
  #stopWhenAbandoned(executor: Executor, command: CommandEnvelope, response: Promise<ResponseEnvelope>, signal: AbortSignal | undefined): void {
    const stop = (reason: 'cancelled' | 'timeout') => {
      try {
        executor.cancel?.(command, reason);
      } catch (error) {
        this.#logger.warn({ executorId: executor.id, wireId: command.wireId, error }, 'could not tell the browser to stop a command');
      }
    };
    const onAbort = () => {
      if (this.#pending.fail(command.wireId, new CommandCancelledError(command.name))) stop('cancelled');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    response
      .catch((error: unknown) => {
        if (isDaemonError(error) && error.code === 'BMCP_ERR_TIMEOUT') stop('timeout');
      })
      .finally(() => signal?.removeEventListener('abort', onAbort));
  }
}
