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
  /** Whether its client ever called a tool: many clients open a session only to list the tools, then go away. */
  called?: boolean;
}

export interface SessionLog {
  opened(session: GatewaySession): void;
  closed(session: GatewaySession, reason: string): void;
}

/** How long a session whose client never called a tool may sit idle (capped by the idle timeout). */
export const UNUSED_IDLE_MS = 5 * 60_000;

/** Why sessions closed by the gateway ended, kept a while for a client that comes back with one of them. */
const ENDED_KEPT = 1_000;

/** How many MCP sessions may be open: in all, and per API key (--max-sessions, --max-sessions-per-key). */
export interface SessionLimits {
  maxSessions: number;
  maxSessionsPerKey: number;
}

/** Every live MCP session of the gateway; closing one closes its tabs through the backend. */
export class SessionRegistry {
  private readonly sessions = new Map<string, GatewaySession>();
  /** Sessions being opened (their initialize still running), per key: counted against the limits already. */
  private readonly opening = new Map<string, number>();
  /** Sessions the gateway closed itself (idle, to make room), by id: a client that returns is told why. */
  private readonly ended = new Map<string, string>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly backend: Backend,
    private readonly log: SessionLog,
    private readonly sessionIdleMs: number,
    private readonly limits: SessionLimits = { maxSessions: Infinity, maxSessionsPerKey: Infinity },
  ) {
    if (sessionIdleMs > 0) {
      this.sweeper = setInterval(() => void this.expireIdle(), Math.min(sessionIdleMs, UNUSED_IDLE_MS, 60_000));
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
    if (this.sessions.size + opening >= this.limits.maxSessions) {
      return {
        status: 503,
        refused: `The gateway has ${this.limits.maxSessions} open MCP sessions, its limit (--max-sessions). Try again when some have closed.`,
      };
    }
    const mine = [...this.sessions.values()].filter((s) => (s.keyHash ?? '') === key);
    if (mine.length + (this.opening.get(key) ?? 0) >= this.limits.maxSessionsPerKey) {
      // Many clients never end their sessions: the key's least recently used idle one makes room, rather than the
      // key being locked out until they expire. Only when all are busy is the new one refused.
      const [oldest] = mine.filter((s) => s.openStreams === 0).sort((a, b) => a.lastSeen - b.lastSeen);
      if (!oldest) {
        return {
          status: 429,
          refused: `This API key has ${this.limits.maxSessionsPerKey} open MCP sessions, all busy, the gateway's limit (--max-sessions-per-key). End sessions you no longer use (DELETE /mcp), or try again when a call has ended.`,
        };
      }
      const idle = Math.round((Date.now() - oldest.lastSeen) / 1000);
      void this.close(
        oldest.id,
        `closed to make room for a new session of the same API key (--max-sessions-per-key ${this.limits.maxSessionsPerKey}); it was the least recently used, idle for ${idle} s`,
      );
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

  /** Why the gateway ended this session, if it did and it was not long ago: for the answer to a client that returns. */
  endedWhy(id: string): string | undefined {
    return this.ended.get(id);
  }

  /** The client called a tool in this session: it is in use, not only looked at. */
  called(session: GatewaySession): void {
    session.called = true;
  }

  /** Ends a session: its MCP server and transport close, and the daemon closes its tabs. Safe to call twice. */
  async close(id: string, reason: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.ended.set(id, reason);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value!);
    this.log.closed(session, reason);
    await Promise.allSettled([session.server.close(), this.backend.closeSession(id)]);
  }

  private async expireIdle(): Promise<void> {
    const now = Date.now();
    // A session whose client never called a tool (it listed them and went away) goes sooner.
    const limit = (s: GatewaySession) => (s.called ? this.sessionIdleMs : Math.min(this.sessionIdleMs, UNUSED_IDLE_MS));
    const idle = [...this.sessions.values()].filter((s) => s.openStreams === 0 && now - s.lastSeen > limit(s));
    await Promise.all(idle.map((s) => this.close(s.id, `idle for more than ${Math.round(limit(s) / 1000)} s${s.called ? '' : ' without a tool call'}`)));
  }

  async closeAll(reason: string): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id, reason)));
  }
}
