import { parseClusterReply, type ClusterReply, type ClusterRequest } from '@browsermcp/protocol';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { natsFailure } from './nats-errors.js';

/** How long a live instance may take to answer a ping. */
export const PING_TIMEOUT_MS = 1_500;
/** How long a browser's connection has to answer a ping for its instance to say it holds it: within the above. */
export const HOLDING_PING_MS = 1_000;

/** Whether anything answers a ping on `subject` (a live instance does; "no responders" or silence: none). */
export async function answers(nc: NatsConnection, subject: string): Promise<boolean> {
  try {
    await nc.request(subject, JSON.stringify({ op: 'ping' } satisfies ClusterRequest), { timeout: PING_TIMEOUT_MS });
    return true;
  } catch {
    return false;
  }
}

/**
 * Asks the instance behind `subject` a question it answers in its reply: 'gone' when NATS has no one there (no
 * responders: the instance died or lost NATS), undefined when it stayed silent past the ping timeout or its answer was
 * an error or unreadable.
 */
export async function askInstance(nc: NatsConnection, subject: string, request: ClusterRequest): Promise<(ClusterReply & { ok: true }) | 'gone' | undefined> {
  try {
    const reply = parseClusterReply(jsonOf(await nc.request(subject, JSON.stringify(request), { timeout: PING_TIMEOUT_MS })));
    return reply.ok && reply.value.ok ? reply.value : undefined;
  } catch (error) {
    return natsFailure(error) === 'no-responders' ? 'gone' : undefined;
  }
}

/** A message's JSON, or undefined when it is not JSON (the parsers then say what is wrong). */
export function jsonOf(msg: Msg): unknown {
  try {
    return msg.json();
  } catch {
    return undefined;
  }
}

/** A broadcast read with its parser; one that does not parse is dropped (nobody waits for an answer to it). */
export function readMessage<T>(msg: Msg, parse: (value: unknown) => { ok: true; value: T } | { ok: false }): T | undefined {
  const result = parse(jsonOf(msg));
  return result.ok ? result.value : undefined;
}
