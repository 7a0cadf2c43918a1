// Ids come from clients and browsers and may hold any character; NATS subjects and KV keys allow few. Every id is
// written into a key or subject as unpadded base64url, which is one valid token whatever the id holds.

/** One KV key or subject token for any non-empty id. */
export function token(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

export function fromToken(encoded: string): string {
  return Buffer.from(encoded, 'base64url').toString('utf8');
}

/** What `--instance-id` may be: it is printed, logged and used as a subject token as it is. */
export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The executor id of an instance's own launched browser: unique in the cluster. */
export function localBrowserId(instanceId: string): string {
  return `local-${instanceId}`;
}

/**
 * What an instance's own launched browser is called in the cluster: from its id alone, whatever its directory entry
 * says, so that a daemon's credentials cannot dress a browser of theirs up as a user's laptop.
 */
export function localBrowserName(instanceId: string): string {
  return `Chromium on ${instanceId}`;
}

/** The buckets and subjects of one cluster; `prefix` lets several clusters share one NATS account. */
export class ClusterNames {
  constructor(readonly prefix = 'browsermcp') {}

  /** Sessions and tab ownership (no TTL: a session lives until it is closed or its browser's grace runs out). */
  get routerBucket(): string {
    return `${this.prefix}_router`;
  }

  /** Which instance holds which browser: entries live only as long as their instance's heartbeat refreshes them. */
  get browsersBucket(): string {
    return `${this.prefix}_browsers`;
  }

  /**
   * Commands and session calls for the browsers instance `to` holds (request/reply), sent by instance `from`: NATS
   * lets each daemon publish only with its own id as the sender, so the instance that serves a request knows who asks.
   */
  instanceSubject(to: string, from: string): string {
    return `${this.prefix}.instance.${to}.from.${from}`;
  }

  /** The sender of a request on an instance subject (see instanceSubject), or undefined for any other subject. */
  senderOf(subject: string): string | undefined {
    const head = `${this.prefix}.instance.`;
    if (!subject.startsWith(head)) return undefined;
    const [, from, sender, ...rest] = subject.slice(head.length).split('.');
    return from === 'from' && sender !== undefined && rest.length === 0 && INSTANCE_ID_PATTERN.test(sender) ? sender : undefined;
  }

  /** A session ended on some instance: the others drop its queue and tell its listeners. */
  get endedSubject(): string {
    return `${this.prefix}.session-ended`;
  }

  /**
   * Where an instance's replies arrive: a prefix of its own, so that NATS permissions can let each daemon read only
   * the answers to its own requests.
   */
  inboxPrefix(instanceId: string): string {
    return `_INBOX.${this.prefix}.${instanceId}`;
  }

  /** The directory key of a live instance: only that instance may write it. */
  instanceKey(instanceId: string): string {
    return `i.${instanceId}`;
  }

  /** The directory keys of the browsers one instance holds start with this: only that instance may write them. */
  browserKeyPrefix(instanceId: string): string {
    return `b.${instanceId}`;
  }

  /** The directory key of a browser as one instance holds it. */
  browserKey(instanceId: string, browserId: string): string {
    return `${this.browserKeyPrefix(instanceId)}.${token(browserId)}`;
  }

  /** Which instance a directory key belongs to, and what it names: undefined for a key of no known shape. */
  parseDirectoryKey(key: string): { instanceId: string; browserId?: string } | undefined {
    const parts = key.split('.');
    if (parts[0] === 'i' && parts.length === 2 && INSTANCE_ID_PATTERN.test(parts[1]!)) return { instanceId: parts[1]! };
    if (parts[0] === 'b' && parts.length === 3 && INSTANCE_ID_PATTERN.test(parts[1]!) && parts[2]) {
      return { instanceId: parts[1]!, browserId: fromToken(parts[2]) };
    }
    return undefined;
  }
}
