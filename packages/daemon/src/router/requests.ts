import { CommandCancelledError, InvalidArgumentError } from '../errors';
import { checkDelay, checkId } from './checks';
import type { SessionRecord } from './store';
import type { DispatchRequest, OpenSessionOptions } from './types';

/**
 * What callers ask of the router, checked before any work: a session to open (its record), a command to dispatch
 * (its timeout). Each bad value is an InvalidArgument naming it.
 */

/** The record of a session `openSession` is asked to open on `executorId` (the option's, else the router's default). */
export function sessionRecordFor(sessionId: string, options: OpenSessionOptions, defaultExecutorId: string | undefined): SessionRecord {
  checkId(sessionId, 'sessionId');
  const { clientName, agent, userId, servedBy, account } = options;
  if (clientName !== undefined && typeof clientName !== 'string') throw new InvalidArgumentError('"clientName" must be a string');
  if (agent !== undefined && (typeof agent !== 'string' || agent.length > 200)) {
    throw new InvalidArgumentError('"agent" must be a string of at most 200 characters');
  }
  const executorId = options.executorId ?? defaultExecutorId;
  if (executorId === undefined) throw new InvalidArgumentError('openSession needs an executorId, or a router with a defaultExecutorId');
  checkId(executorId, 'executorId');
  if (userId !== undefined) checkId(userId, 'userId');
  if (account !== undefined && (typeof account !== 'string' || account === '' || account.length > 200)) {
    throw new InvalidArgumentError('"account" must be a string of 1 to 200 characters');
  }
  if (servedBy !== undefined) checkId(servedBy, 'servedBy');
  return {
    sessionId,
    executorId,
    ...(clientName !== undefined ? { clientName } : {}),
    ...(agent !== undefined ? { agent } : {}),
    ...(userId !== undefined ? { userId } : {}),
    ...(account !== undefined ? { account } : {}),
    ...(servedBy !== undefined ? { servedBy } : {}),
    ...(options.settings !== undefined ? { settings: options.settings } : {}),
  };
}

/** Checks a command `dispatch` is asked to run; returns its timeout (the request's, else `defaultTimeoutMs`). */
export function checkDispatch(sessionId: string, request: DispatchRequest, defaultTimeoutMs: number): number {
  checkId(sessionId, 'sessionId');
  if (typeof request !== 'object' || request === null) throw new InvalidArgumentError('a command must be an object');
  checkId(request.name, 'command name');
  if (request.tabId !== undefined) checkId(request.tabId, 'tabId');
  if (request.originId !== undefined) checkId(request.originId, 'originId');
  if (request.userId !== undefined) checkId(request.userId, 'userId');
  if (request.signal !== undefined && !(request.signal instanceof AbortSignal)) throw new InvalidArgumentError('"signal" must be an AbortSignal');
  if (request.signal?.aborted) throw new CommandCancelledError(request.name);
  return checkDelay(request.timeoutMs, 'timeoutMs', defaultTimeoutMs, 1);
}
