import { InvalidArgumentError } from '../errors';
import { checkDelay, checkId } from './checks';
import { InMemoryRouterStore } from './memory-store';
import type { RouterStore } from './store';
import type { RouterLogger, RouterOptions } from './types';

/** Long enough for a slow navigation (60 s by default) plus the snapshot after it. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 90_000;
export const DEFAULT_GRACE_PERIOD_MS = 5 * 60_000;
/** Most sessions one user may have open on a daemon (or a cluster: the store is shared). */
export const DEFAULT_MAX_SESSIONS_PER_USER = 50;
/** Most browser states kept at once (each holds a browser context and its tabs). */
export const DEFAULT_MAX_BROWSER_STATES = 200;
const silentLogger: RouterLogger = { warn() {} };

/** The router's options with their defaults, each checked. */
export interface CheckedRouterOptions {
  readonly commandTimeoutMs: number;
  readonly gracePeriodMs: number;
  readonly maxSessionsPerUser: number;
  readonly maxBrowserStates: number;
  readonly defaultExecutorId: string | undefined;
  readonly store: RouterStore;
  readonly logger: RouterLogger;
  readonly remote: RouterOptions['remote'];
}

/** Checks the options once, when the router is made, so a bad one fails at startup rather than on some later command. */
export function checkRouterOptions(options: RouterOptions): CheckedRouterOptions {
  const whole = (value: number | undefined, name: string, fallback: number) => {
    const n = value ?? fallback;
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${name}" must be a whole number of at least 1`);
    return n;
  };
  if (options.defaultExecutorId !== undefined) checkId(options.defaultExecutorId, 'defaultExecutorId');
  if (options.store !== undefined && (typeof options.store !== 'object' || options.store === null)) {
    throw new InvalidArgumentError('"store" must be a RouterStore');
  }
  if (options.logger !== undefined && typeof options.logger?.warn !== 'function') {
    throw new InvalidArgumentError('"logger" must have a warn method');
  }
  return {
    commandTimeoutMs: checkDelay(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_COMMAND_TIMEOUT_MS, 1),
    gracePeriodMs: checkDelay(options.gracePeriodMs, 'gracePeriodMs', DEFAULT_GRACE_PERIOD_MS, 0),
    maxSessionsPerUser: whole(options.maxSessionsPerUser, 'maxSessionsPerUser', DEFAULT_MAX_SESSIONS_PER_USER),
    maxBrowserStates: whole(options.maxBrowserStates, 'maxBrowserStates', DEFAULT_MAX_BROWSER_STATES),
    defaultExecutorId: options.defaultExecutorId,
    store: options.store ?? new InMemoryRouterStore(),
    logger: options.logger ?? silentLogger,
    remote: options.remote,
  };
}
