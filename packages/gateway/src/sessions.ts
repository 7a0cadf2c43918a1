import { randomBytes } from 'node:crypto';
import type { Server, Transport } from '@modelcontextprotocol/server';
import type { Backend } from './backend.js';

/** 192 random bits, URL-safe: session ids are bearer-like secrets and must not be guessable. */
export function newSessionId(): string {
  return randomBytes(24).toString('base64url');
}

export interface GatewaySession {
  readonly id: string;
  readonly kind: 'streamable' | 'sse' | 'stdio';
  /** Hash of the API key that created the session: only that key may use it. */
  readonly keyHash: string | undefined;
  readonly transport: Transport;
  readonly server: Server;
  lastSeen: number;
  /** Open responses and GET/SSE streams: a session with one is in use, however long since its client last sent. */
  openStreams: number;
  /** The MCP protocol version agreed at initialize (Streamable HTTP sessions). */
  protocolVersion?: string;
}

export interface SessionLog {
  opened(session: GatewaySession): void;
  closed(session: GatewaySession, reason: string): void;
}

/** How many MCP sessions may be open: in all, and per API key (--max-sessions, --max-sessions-per-key). */
export interface SessionLimits {
  total: number;
  perKey: number;
}

/** Every live MCP session of the gateway; closing one closes its tabs through the backend. */
export class SessionRegistry {
  private readonly sessions = new Map<string, GatewaySession>();
  /** Sessions being opened (their initialize still running), per key: counted against the limits already. */
  private readonly opening = new Map<string, number>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly backend: Backend,
    private readonly log: SessionLog,
    private readonly idleMs: number,
    private readonly limits: SessionLimits = { total: Infinity, perKey: Infinity },
  ) {
    if (idleMs > 0) {
      this.sweeper = setInterval(() => void this.expireIdle(), Math.min(idleMs, 60_000));
      this.sweeper.unref();
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  ids(): string[] {
    return [...this.sessions.keys()];
  }

  get(id: string): GatewaySession | undefined {
    return this.sessions.get(id);
  }

  /**
   * Holds a place for a session about to open, or says why there is none (the limits, checked before any work):
   * `release` once the session is added or its opening failed.
   */
  reserve(keyHash: string | undefined): { release(): void } | { refused: string; status: 429 | 503 } {
    const key = keyHash ?? '';
    const opening = [...this.opening.values()].reduce((a, b) => a + b, 0);
    if (this.sessions.size + opening >= this.limits.total) {
      return { status: 503, refused: `The gateway has ${this.limits.total} open MCP sessions, its limit (--max-sessions). Try again when some have closed.` };
    }
    const mine = [...this.sessions.values()].filter((s) => (s.keyHash ?? '') === key).length + (this.opening.get(key) ?? 0);
    if (mine >= this.limits.perKey) {
      return {
        status: 429,
        refused: `This API key has ${this.limits.perKey} open MCP sessions, the gateway's limit (--max-sessions-per-key). End sessions you no longer use (DELETE /mcp), or wait for idle ones to close.`,
      };
    }
    this.opening.set(key, (this.opening.get(key) ?? 0) + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.opening.get(key) ?? 1) - 1;
        if (left > 0) this.opening.set(key, left);
        else this.opening.delete(key);
      },
    };
  }

  add(session: GatewaySession): void {
    this.sessions.set(session.id, session);
    this.log.opened(session);
  }

  touch(session: GatewaySession): void {
    session.lastSeen = Date.now();
  }

  /** Ends a session: its MCP server and transport close, and the daemon closes its tabs. Safe to call twice. */
  async close(id: string, reason: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.log.closed(session, reason);
    await Promise.allSettled([session.server.close(), this.backend.closeSession(id)]);
  }

  private async expireIdle(): Promise<void> {
    const now = Date.now();
    const idle = [...this.sessions.values()].filter((s) => s.openStreams === 0 && now - s.lastSeen > this.idleMs);
    await Promise.all(idle.map((s) => this.close(s.id, `idle for more than ${Math.round(this.idleMs / 1000)} s`)));
  }

  async closeAll(reason: string): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id, reason)));
  }
}
