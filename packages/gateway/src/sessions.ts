import { randomBytes } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
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

/** Every live MCP session of the gateway; closing one closes its tabs through the backend. */
export class SessionRegistry {
  private readonly sessions = new Map<string, GatewaySession>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly backend: Backend,
    private readonly log: SessionLog,
    private readonly idleMs: number,
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
