import { parseClusterReply, type ClusterRequest } from '@browsermcp/protocol';
import type { Msg, NatsConnection } from '@nats-io/transport-node';

/** How long a live instance may take to answer a ping. */
export const PING_TIMEOUT_MS = 1_500;

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
 * Asks the instance behind `subject` a question it answers with a yes or no in `field` of its reply; no answer (gone:
 * no responders, or silent past the ping timeout), an error or an unreadable reply counts as no.
 */
export async function askYesNo(nc: NatsConnection, subject: string, request: ClusterRequest, field: 'driving' | 'holding'): Promise<boolean> {
  try {
    const reply = parseClusterReply(jsonOf(await nc.request(subject, JSON.stringify(request), { timeout: PING_TIMEOUT_MS })));
    return reply.ok && reply.value.ok && reply.value[field] === true;
  } catch {
    return false;
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
