import { InvalidArgumentError } from '../errors';
import type { Executor } from './types';

/** setTimeout's limit: a longer delay fires at once. */
export const MAX_DELAY_MS = 2_147_483_647;

// The router is a public API of @browsermcp/daemon: what callers hand it is checked at the door, so a bad value fails
// with InvalidArgument where it came in rather than on some later command.

export function checkId(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || value === '') throw new InvalidArgumentError(`"${what}" must be a non-empty string`);
}

export function checkDelay(value: number | undefined, what: string, fallback: number, min: 0 | 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > MAX_DELAY_MS) {
    throw new InvalidArgumentError(`"${what}" must be a number of ms from ${min} to ${MAX_DELAY_MS}`);
  }
  return value;
}

export function checkListener(listener: unknown): void {
  if (typeof listener !== 'function') throw new InvalidArgumentError('a listener must be a function');
}

export function checkExecutor(executor: Executor): void {
  if (typeof executor !== 'object' || executor === null) {
    throw new InvalidArgumentError('an executor must be an object');
  }
  checkId(executor.id, 'executor.id');
  if (executor.kind !== 'local' && executor.kind !== 'extension') {
    throw new InvalidArgumentError('"executor.kind" must be "local" or "extension"');
  }
  if (typeof executor.send !== 'function' || typeof executor.closeSession !== 'function') {
    throw new InvalidArgumentError('an executor must have send and closeSession methods');
  }
}
