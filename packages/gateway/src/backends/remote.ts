import { createHmac } from 'node:crypto';
import { ErrorCodes, parseToolResult, ProxyMethods, type ProxyParams, type SessionSettings } from '@browsermcp/protocol';
import type { ToolResult } from '@browsermcp/tools';
import { DEFAULT_COMMAND_TIMEOUT_MS } from '@browsermcp/daemon';
import { RemoteDaemonError } from '../errors.js';
import { IdlePool } from '../idle-pool.js';
import { ProxyConnection } from './proxy-connection.js';
import type { Backend, KeptStateInfo, KeptStateOptions, OpenSessionOptions } from '../backend.js';

export interface RemoteBackendOptions {
  /**
   * The daemon's proxy endpoint, e.g. ws://host:8765/mcp (wss:// off loopback); with several daemons of a cluster,
   * each session moves to the next when its daemon cannot be reached or its connection drops, and takes up its
   * daemon session there.
   */
  daemonUrls: string | readonly string[];
  /** A token from `browsermcp-daemon token --user U --secret-file F`; absent (or empty) for a daemon without auth. */
  daemonToken?: string | undefined;
  /** Which browser to drive (an extension id from list_extensions, or "local"); the first connected by default. */
  daemonBrowser?: string | undefined;
  /** How long a request to the daemon may take (--command-timeout; DEFAULT_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
  /** --keep-browser-state: sessions of one owner drive one kept browser state on the daemon, for this long (ms). */
  keepBrowserStateMs?: number | undefined;
  /** The tool-behaviour flags (and --caps): each session opens with them, applied by the daemon within its own. */
  sessionSettings?: SessionSettings | undefined;
}

/** A tool's answer from the daemon: MCP content parts (anything else is the daemon's bug, said as an error). */
function toolResult(name: string, value: unknown): ToolResult {
  const result = parseToolResult(value);
  if (!result.ok)
    throw new RemoteDaemonError(`The daemon answered ${name} with something that is not a tool result (${result.message}).`, ErrorCodes.InternalError);
  return result.value;
}

/**
 * How the daemon is told whose kept state a session takes up: a label keyed by the owner (a hash of its key), not the
 * hash itself, so nothing the daemon sees or stores is a plain hash of a key; the daemon derives its own owner from
 * it under a secret of its own.
 */
export function keptStateLabel(owner: string): string {
  return createHmac('sha256', owner).update('browsermcp kept browser state').digest('base64url');
}

/** The proxy `connect`'s keep_state for a session's owner: labels, never the key hashes themselves. */
function keepStateParams(owner: string, ms: number, state: KeptStateOptions | undefined): NonNullable<ProxyParams<'connect'>['keep_state']> {
  return {
    owner: keptStateLabel(owner),
    ms,
    ...(state?.existing ? { existing: true } : {}),
    ...(state?.principal !== undefined ? { principal: keptStateLabel(state.principal) } : {}),
    ...(state?.name !== undefined ? { name: state.name } : {}),
  };
}

/** How long a connection holding a kept state waits for its owner's next request before it lets the state go. */
const KEPT_LINK_IDLE_MS = 30_000;

/** Which kept state a session holds, as connections are pooled by it; undefined for a session of its own. */
function keptKey(session: RemoteSession): string | undefined {
  if (session.keepMs === undefined || session.owner === undefined) return undefined;
  return keptStateLabel(session.owner);
}

interface RemoteSession {
  conn: ProxyConnection | undefined;
  /** A connection being made (first, or after a drop); calls wait for it. */
  attaching: Promise<ProxyConnection> | undefined;
  /** The daemon session, once connected: taken up again (resume_session) on the next connection. */
  daemonSession: { sessionId: string; browser: string } | undefined;
  /** Who opened it (a hash of its key): with keepMs, its owner's kept state is taken up instead. */
  owner: string | undefined;
  /** Whose key its tabs count toward on the daemon (--max-key-memory): the caller's, else the owner's. */
  account: string | undefined;
  /** How long its owner's kept state outlives its last user (ms); undefined: the session is its own. */
  keepMs: number | undefined;
  /** How its kept state is found and listed. */
  state: KeptStateOptions | undefined;
  closed: boolean;
}

/**
 * A daemon on another machine (or process) through its /mcp proxy endpoint: each MCP session gets its own
 * authenticated connection and daemon session on the chosen browser. With several daemons of a cluster, a session
 * whose connection drops moves to the next daemon at once and takes up its daemon session there, so its page and
 * state survive; a call that was running when it dropped fails and may be called again.
 */
export class RemoteBackend implements Backend {
  readonly mode = 'remote' as const;
  private readonly urls: readonly string[];
  /** The daemon that answered last: new connections start there. */
  private current = 0;
  private readonly sessions = new Map<string, RemoteSession>();
  /**
   * Connections holding a kept browser state, between the sessions that use it: a 2026-07-28 request opens and closes
   * a session per call, and would otherwise pay a connection, a handshake and a connect on every one.
   */
  private readonly kept = new IdlePool<{ conn: ProxyConnection; daemonSession: RemoteSession['daemonSession'] }>({
    idleMs: KEPT_LINK_IDLE_MS,
    perKey: 4,
    usable: ({ conn }) => !conn.closed && conn.connected,
    end: ({ conn }) => void this.disconnect(conn),
  });

  constructor(private readonly options: RemoteBackendOptions) {
    this.urls = typeof options.daemonUrls === 'string' ? [options.daemonUrls] : [...options.daemonUrls];
    if (this.urls.length === 0) throw new TypeError('RemoteBackend needs at least one of daemonUrls');
  }

  /** A connection to the first daemon that answers, from the one that answered last. */
  private async connectAny(session: RemoteSession): Promise<ProxyConnection> {
    let lastError: unknown;
    for (let i = 0; i < this.urls.length; i++) {
      const index = (this.current + i) % this.urls.length;
      try {
        const conn = await this.connect(this.urls[index]!, session);
        this.current = index;
        return conn;
      } catch (error) {
        // A daemon that answered and refused (a bad token, no such browser) would say the same on the others.
        if (!(error instanceof RemoteDaemonError && error.unreachable)) throw error;
        lastError = error;
      }
    }
    throw this.urls.length === 1
      ? lastError
      : new RemoteDaemonError(
          `None of the daemons (${this.urls.join(', ')}) can be reached: ${(lastError as Error).message}`,
          ErrorCodes.BrowserDisconnected,
          true,
        );
  }

  private async connect(url: string, session: RemoteSession): Promise<ProxyConnection> {
    const timeoutMs = this.options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const conn = await ProxyConnection.open(url, timeoutMs);
    try {
      await conn.proxy(ProxyMethods.mcpHandshake, { accessToken: this.options.daemonToken ?? '' });
      const keep = session.keepMs !== undefined && session.owner !== undefined ? keepStateParams(session.owner, session.keepMs, session.state) : undefined;
      // A kept state is taken up by its owner on every connection; another session by its id after a drop.
      const resumed = !keep && session.daemonSession && (await this.resume(conn, session.daemonSession));
      if (!resumed) {
        const { extensions } = await conn.proxy(ProxyMethods.listExtensions);
        const choice = this.options.daemonBrowser ?? extensions.find((e) => e.connected)?.id;
        if (!choice) {
          throw new RemoteDaemonError(
            'The remote daemon has no browser connected: start one there (or connect its extension), then call the tool again.',
            ErrorCodes.BrowserDisconnected,
          );
        }
        const settings = this.options.sessionSettings;
        const linked = await conn.proxy(ProxyMethods.connect, {
          extension_id: choice,
          ...(keep ? { keep_state: keep } : { resumable: true }),
          ...(settings ? { settings } : {}),
          // A label of the key, never its hash (as for kept states).
          ...(session.account !== undefined ? { account: keptStateLabel(session.account) } : {}),
        });
        session.daemonSession = linked.session_id !== undefined ? { sessionId: linked.session_id, browser: linked.extension_id } : undefined;
      }
      return conn;
    } catch (err) {
      conn.close();
      throw err;
    }
  }

  /** Takes up the session's daemon session on a new connection; false when it is gone (then a new one opens). */
  private async resume(conn: ProxyConnection, daemonSession: { sessionId: string; browser: string }): Promise<boolean> {
    try {
      await conn.proxy(ProxyMethods.connect, { extension_id: daemonSession.browser, resumable: true, resume_session: daemonSession.sessionId });
      return true;
    } catch (error) {
      if (error instanceof RemoteDaemonError && (error.code === ErrorCodes.SessionNotFound || error.code === ErrorCodes.ExtensionNotFound)) return false;
      throw error;
    }
  }

  /** The session's live connection, made (or made again after a drop) if needed. */
  private live(session: RemoteSession): Promise<ProxyConnection> {
    if (session.conn && !session.conn.closed) return Promise.resolve(session.conn);
    session.attaching ??= this.connectAny(session)
      .then((conn) => {
        if (session.closed) {
          conn.close();
          throw new RemoteDaemonError('The session ended.', ErrorCodes.BrowserDisconnected);
        }
        session.conn = conn;
        // A drop moves the session to the next daemon at once, so it is ready before the next call.
        conn.onDrop = () => {
          if (session.conn === conn && !session.closed) void this.live(session).catch(() => undefined);
        };
        return conn;
      })
      .finally(() => {
        session.attaching = undefined;
      });
    return session.attaching;
  }

  async openSession(sessionId: string, { owner, caller, keepMs = this.options.keepBrowserStateMs, state }: OpenSessionOptions = {}): Promise<void> {
    const account = caller ?? owner;
    const session: RemoteSession = { conn: undefined, attaching: undefined, daemonSession: undefined, owner, account, keepMs, state, closed: false };
    this.sessions.set(sessionId, session);
    const link = keptKey(session) !== undefined ? this.kept.take(keptKey(session)!) : undefined;
    if (link) {
      session.conn = link.conn;
      session.daemonSession = link.daemonSession;
      link.conn.onDrop = () => {
        if (session.conn === link.conn && !session.closed) void this.live(session).catch(() => undefined);
      };
      return;
    }
    try {
      await this.live(session);
    } catch (err) {
      this.sessions.delete(sessionId);
      throw err;
    }
  }

  async callTool(sessionId: string, name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    const session = this.sessions.get(sessionId);
    // The session never got a connection (its daemon was down when it opened): this call makes one.
    if (!session) await this.openSession(sessionId);
    const conn = await this.live(this.sessions.get(sessionId)!);
    return toolResult(name, await conn.request(name, args, signal));
  }

  async closeSession(sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    if (!session) return;
    session.closed = true;
    const conn = session.conn ?? (await session.attaching?.catch(() => undefined));
    if (!conn || conn.closed) return;
    const key = keptKey(session);
    if (key !== undefined) {
      // Still holding the state: kept for the owner's next request, which takes it up without a round trip.
      conn.onDrop = undefined;
      this.kept.put(key, { conn, daemonSession: session.daemonSession });
      return;
    }
    await this.disconnect(conn);
  }

  private async disconnect(conn: ProxyConnection): Promise<void> {
    if (conn.closed) return;
    await conn.proxy(ProxyMethods.disconnect).catch(() => undefined);
    conn.close();
  }

  /** A connection of its own for one request that needs no browser session (listing or closing kept states). */
  private async oneOff<T>(run: (conn: ProxyConnection) => Promise<T>): Promise<T> {
    let lastError: unknown;
    for (let i = 0; i < this.urls.length; i++) {
      const index = (this.current + i) % this.urls.length;
      let conn: ProxyConnection | undefined;
      try {
        conn = await ProxyConnection.open(this.urls[index]!, this.options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS);
        await conn.proxy(ProxyMethods.mcpHandshake, { accessToken: this.options.daemonToken ?? '' });
        return await run(conn);
      } catch (error) {
        if (!(error instanceof RemoteDaemonError && error.unreachable)) throw error;
        lastError = error;
      } finally {
        conn?.close();
      }
    }
    throw lastError;
  }

  async listStates(principal: string): Promise<KeptStateInfo[]> {
    const { states } = await this.oneOff((conn) => conn.proxy(ProxyMethods.listStates, { principal: keptStateLabel(principal) }));
    return states.map((s) => ({ name: s.name, inUse: s.in_use, ...(s.closes_in_ms !== undefined ? { closesInMs: s.closes_in_ms } : {}) }));
  }

  async closeState(owner: string): Promise<boolean> {
    return (await this.oneOff((conn) => conn.proxy(ProxyMethods.closeState, { owner: keptStateLabel(owner) }))).closed;
  }

  /** Whether the daemon says a browser is connected for an open session: the last status it sent, not a guess. */
  browserConnected(): boolean {
    return [...this.sessions.values()].some((s) => s.conn !== undefined && !s.conn.closed && s.conn.connected);
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.closeSession(id)));
    this.kept.clear();
  }
}
