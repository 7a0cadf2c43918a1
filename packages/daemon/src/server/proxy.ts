import { randomBytes } from 'node:crypto';
import {
  ErrorCodes,
  isReservedId,
  jsonRpcError,
  jsonRpcNotification,
  jsonRpcResult,
  mapId,
  parseMessage,
  parseProxyParams,
  ProxyMethods,
  type ExtensionInfo,
  type JsonRpcId,
  type JsonRpcRequest,
  type ProxyConnectionState,
  type SessionSettings,
} from '@browsermcp/protocol';
import { settingsWithin, SettingsConflictError } from '@browsermcp/tools';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import { BadRequestError, ExtensionNotFoundError, StateNotFoundError, UnauthorizedError, toWireError } from '../errors.js';
import { listedState, type Unsubscribe } from '../router/index.js';
import { browsersFor, findBrowser, sessionOf } from './caller.js';
import { keptStateOwner } from './state-owners.js';
import { runLogged, type DaemonState } from './core.js';
import type { ExtensionBrowserState } from '../cluster/extension-browsers.js';
import { watchHeartbeat } from './heartbeat.js';

interface Link {
  readonly connectionId: string;
  readonly extensionId: string;
  readonly sessionId: string;
  /** Kept for the grace period when the connection drops, for another connection to take up. */
  readonly resumable: boolean;
  /** The kept browser state this link drives (keep_state): released, not closed, when the link ends. */
  readonly state?: { readonly owner: string; readonly handle: string; readonly holder: string };
  readonly stop: Unsubscribe[];
}

function shortId(): string {
  return randomBytes(6).toString('base64url').replace(/[-_]/g, 'x');
}

/**
 * One remote MCP client on /mcp. State: `handshake` (only mcp_handshake is accepted) → `ready` → `closed`; while
 * ready it may hold one link to a browser (connect … disconnect), whose daemon session runs its tool calls.
 */
class ProxyClient {
  private state: 'handshake' | 'ready' | 'closed' = 'handshake';
  private userId: string | null = null;
  private readonly clientId = shortId();
  private link: Link | undefined;
  /** The connection ids this client was given: disconnecting one that has ended answers success. */
  private readonly pastConnections = new Set<string>();
  private readonly stopWatching: () => void;
  /** Tool calls running, by the client's request id: `notifications/cancelled` stops one. */
  private readonly calls = new Map<JsonRpcId, AbortController>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly socket: WebSocket,
    private readonly log: FastifyBaseLogger,
  ) {
    socket.on('message', (data) => {
      void this.onMessage(data.toString()).catch((error: unknown) => this.log.warn({ error }, 'proxy message failed'));
    });
    socket.once('close', () => void this.onClose());
    this.stopWatching = this.daemon.extensions.onChange((id, state) => this.onExtension(id, state));
  }

  private get daemon(): DaemonState {
    return this.app.browsermcp;
  }

  private send(message: unknown): void {
    if (this.state !== 'closed') this.socket.send(JSON.stringify(message), () => undefined);
  }

  private status(state: ProxyConnectionState, message?: string): void {
    if (!this.link) return;
    const { connectionId, extensionId } = this.link;
    this.send(
      jsonRpcNotification(ProxyMethods.status, {
        state,
        connection_id: connectionId,
        extension_id: extensionId,
        ...(message !== undefined ? { message } : {}),
      }),
    );
  }

  private async onMessage(text: string): Promise<void> {
    const parsed = parseMessage(text);
    if (!parsed.ok) return this.send(jsonRpcError(parsed.id, parsed.error.code, parsed.error.message));
    if (parsed.kind === 'batch')
      return this.send(jsonRpcError(null, ErrorCodes.InvalidRequest, 'batches are not supported on /mcp; send one request at a time'));
    if (parsed.kind === 'notification' && parsed.message.method === ProxyMethods.cancelled) return this.cancel(parsed.message.params);
    if (parsed.kind !== 'request') return; // other notifications and stray responses need no answer
    const request = parsed.message;
    if (isReservedId(request.id)) {
      return this.send(jsonRpcError(request.id, ErrorCodes.InvalidRequest, 'ids starting with "proxy:" or "ext:" are reserved for the daemon; use another id'));
    }
    try {
      this.send(jsonRpcResult(request.id, await this.handle(request)));
    } catch (error) {
      const wire = toWireError(error);
      this.send(jsonRpcError(request.id, wire.code, wire.message, wire.data));
    }
  }

  private async handle(request: JsonRpcRequest): Promise<unknown> {
    const { method } = request;
    if (method === ProxyMethods.mcpHandshake) return this.handshake(request.params);
    if (this.state !== 'ready') throw new UnauthorizedError('call mcp_handshake with your access token first');
    switch (method) {
      case ProxyMethods.listExtensions:
        return { extensions: this.visibleExtensions() };
      case ProxyMethods.connect:
        return this.connect(request.params);
      case ProxyMethods.disconnect:
        return this.disconnect(request.params);
      case ProxyMethods.listStates:
        return this.listStates(request.params);
      case ProxyMethods.closeState:
        return this.closeState(request.params);
      default:
        return this.forward(request);
    }
  }

  private async handshake(params: unknown): Promise<unknown> {
    const checked = parseProxyParams(ProxyMethods.mcpHandshake, params);
    if (!checked.ok) throw new BadRequestError(checked.error.message);
    if (this.state === 'ready') throw new BadRequestError('mcp_handshake was already done on this connection');
    const { verifier } = this.daemon.options;
    if (verifier) this.userId = (await verifier.verify(checked.value.accessToken)).userId;
    this.state = 'ready';
    this.log.info({ clientId: this.clientId, userId: this.userId }, 'proxy client authenticated');
    return { authenticated: verifier !== undefined, user_id: this.userId, mcp_client_id: this.clientId };
  }

  /** The browsers this client may use: its own user's extensions, and the local executor when enabled. */
  private visibleExtensions(): ExtensionInfo[] {
    return browsersFor(this.daemon, this.userId);
  }

  private async connect(params: unknown): Promise<unknown> {
    const checked = parseProxyParams(ProxyMethods.connect, params);
    if (!checked.ok) throw new BadRequestError(checked.error.message);
    if (this.link) {
      throw new BadRequestError(`already connected to ${this.link.extensionId} (connection ${this.link.connectionId}); call disconnect first`);
    }
    const info = findBrowser(this.daemon, this.userId, checked.value.extension_id);
    // Another user's browser reads exactly like an unknown one: its existence is not this client's business.
    if (!info) throw new ExtensionNotFoundError(checked.value.extension_id);
    const extensionId = info.id;
    const { router, cluster } = this.daemon.options;
    const servedBy = cluster?.instanceId;
    const user = this.userId !== null ? { userId: this.userId } : {};
    const connectionId = shortId();
    const { resume_session: resume, keep_state: keep } = checked.value;
    // The client's settings within this daemon's own, or a refusal that says which cannot hold together.
    let settings: SessionSettings | undefined;
    try {
      settings = checked.value.settings ? settingsWithin(this.daemon.options.sessionSettings, checked.value.settings) : undefined;
    } catch (err) {
      if (err instanceof SettingsConflictError) throw new BadRequestError(err.message);
      throw err;
    }
    // This connection, as a holder of a kept state (with its instance: a cluster drops the holders of a dead one).
    const holder = { id: `${this.clientId}-${connectionId}`, ...(servedBy !== undefined ? { instance: servedBy } : {}) };
    if (resume !== undefined && keep !== undefined) {
      throw new BadRequestError('resume_session and keep_state are two ways to take up a session: send one of them');
    }
    let sessionId: string | undefined;
    let state: Link['state'];
    if (resume !== undefined) {
      const session = await sessionOf(this.daemon, resume, this.userId);
      if (session.executorId !== extensionId) {
        throw new BadRequestError(`session ${resume} runs in browser ${session.executorId}, not ${extensionId}: connect to that browser to resume it`);
      }
      if (this.daemon.linked.has(resume)) throw new BadRequestError(`session ${resume} is driven by another connection; disconnect that one first`);
      await router.resumeSession(resume, { ...user, ...(servedBy !== undefined ? { servedBy } : {}) });
      this.daemon.kept.take(resume);
      sessionId = resume;
    } else if (keep !== undefined) {
      // An owner within this user: another user's states are out of reach whatever owner its client names.
      const owner = keptStateOwner(this.daemon.options.stateSecret, this.userId, keep.owner);
      let kept = await router.states.take(owner, holder);
      let session = kept && (await router.getSession(kept.sessionId));
      // One key's state holds only a session of that key's account (its record's sealed part says whose): a state
      // pointed at another account's session, which no daemon writes, is left alone and hands nothing over.
      if (kept !== undefined && session !== undefined && session.account !== checked.value.account) {
        this.log.warn({ clientId: this.clientId, sessionId: kept.sessionId }, "left a kept browser state that names another account's session");
        await router.states.release(owner, kept.handle, holder.id);
        kept = session = undefined;
      }
      if (kept === undefined && keep.existing === true) throw new StateNotFoundError();
      if (kept !== undefined) {
        if (session?.executorId !== extensionId) {
          await router.states.release(owner, kept.handle, holder.id);
          throw new BadRequestError(
            `this owner's kept browser state is in browser ${session?.executorId ?? '(gone)'}, not ${extensionId}: connect to that one`,
          );
        }
        if (servedBy !== undefined) {
          // A take-up refused (in use elsewhere, ended meanwhile) leaves the state as it was, this holder not among it.
          await router.resumeSession(kept.sessionId, { ...user, servedBy, shared: true }).catch(async (error: unknown) => {
            await router.states.release(owner, kept!.handle, holder.id).catch(() => undefined);
            throw error;
          });
        }
        sessionId = kept.sessionId;
        state = { owner, handle: kept.handle, holder: holder.id };
      }
    }
    const resumed = sessionId !== undefined;
    if (sessionId === undefined) {
      // A new kept state must have room before its session opens (--max-browser-states).
      if (keep !== undefined) await router.states.checkRoom();
      sessionId = `proxy-${this.clientId}-${connectionId}`;
      await router.openSession(sessionId, {
        executorId: extensionId,
        clientName: `remote ${this.clientId}`,
        ...user,
        ...(checked.value.account !== undefined ? { account: checked.value.account } : {}),
        ...(servedBy !== undefined ? { servedBy } : {}),
        ...(settings !== undefined ? { settings } : {}),
      });
      if (keep !== undefined) {
        const owner = keptStateOwner(this.daemon.options.stateSecret, this.userId, keep.owner);
        const principal = keep.principal !== undefined ? keptStateOwner(this.daemon.options.stateSecret, this.userId, keep.principal) : undefined;
        const made = await router.states.keep(owner, sessionId, keep.ms, holder, { principal, name: keep.name });
        if (made) state = { owner, handle: made.handle, holder: holder.id };
      }
    }
    this.pastConnections.add(connectionId);
    const link: Link = { connectionId, extensionId, sessionId, resumable: checked.value.resumable === true, ...(state ? { state } : {}), stop: [] };
    this.link = link;
    // A kept state may be driven by several connections at once (its owner's sessions); other sessions by one.
    if (!state) this.daemon.linked.add(sessionId);
    link.stop.push(
      this.daemon.router.onSessionClosed(sessionId, (reason) => {
        if (this.link !== link) return;
        this.link = undefined;
        this.daemon.linked.delete(sessionId);
        for (const stop of link.stop) stop();
        this.send(
          jsonRpcNotification(ProxyMethods.disconnected, {
            connection_id: connectionId,
            extension_id: extensionId,
            reason:
              reason === 'browser-gone'
                ? 'the browser did not reconnect within its grace period'
                : reason === 'stopped'
                  ? 'the person stopped this agent in their browser'
                  : 'the session was closed',
          }),
        );
      }),
      this.daemon.router.onEvent(sessionId, (event) =>
        this.send(jsonRpcNotification(`event/${event.name}`, { tabId: event.tabId ?? null, payload: event.payload })),
      ),
    );
    this.log.info({ clientId: this.clientId, connectionId, extensionId, sessionId, kept: state !== undefined }, resumed ? 'session resumed' : 'session opened');
    this.status('connected');
    return {
      connection_id: connectionId,
      extension_id: extensionId,
      extension_name: info.name,
      session_id: sessionId,
      ...(resumed ? { resumed: true } : {}),
    };
  }

  /** The kept states of a principal within this user (another user's are out of reach whatever it names). */
  private async listStates(params: unknown): Promise<unknown> {
    const checked = parseProxyParams(ProxyMethods.listStates, params);
    if (!checked.ok) throw new BadRequestError(checked.error.message);
    const principal = keptStateOwner(this.daemon.options.stateSecret, this.userId, checked.value.principal);
    const states = await this.daemon.options.router.states.of(principal);
    return {
      states: states.flatMap((s) => {
        const listed = listedState(s);
        return listed ? [{ name: listed.name, in_use: listed.inUse, ...(listed.closesInMs !== undefined ? { closes_in_ms: listed.closesInMs } : {}) }] : [];
      }),
    };
  }

  private async closeState(params: unknown): Promise<unknown> {
    const checked = parseProxyParams(ProxyMethods.closeState, params);
    if (!checked.ok) throw new BadRequestError(checked.error.message);
    const owner = keptStateOwner(this.daemon.options.stateSecret, this.userId, checked.value.owner);
    return { closed: await this.daemon.options.router.states.close(owner) };
  }

  private async disconnect(params: unknown): Promise<unknown> {
    const checked = parseProxyParams(ProxyMethods.disconnect, params);
    if (!checked.ok) throw new BadRequestError(checked.error.message);
    const link = this.link;
    const wanted = checked.value?.connection_id;
    // A connection id this client never had is not its to end. Not connected (any more) through its own: nothing to
    // end, and that is what the caller wanted — safe to call, and successful, as the proxy protocol's example answers.
    if (wanted !== undefined && wanted !== link?.connectionId) return { disconnected: this.pastConnections.has(wanted) };
    if (!link) return { disconnected: true };
    await this.unlink(link);
    return { disconnected: true };
  }

  private async unlink(link: Link): Promise<void> {
    this.link = undefined;
    this.daemon.linked.delete(link.sessionId);
    for (const stop of link.stop) stop();
    if (link.state) {
      // A kept state waits for its owner's next connection; the router closes it when its time runs out.
      await this.daemon.router.states.release(link.state.owner, link.state.handle, link.state.holder).catch(() => undefined);
      this.log.info({ clientId: this.clientId, connectionId: link.connectionId }, 'session released; its browser state is kept');
      return;
    }
    await this.daemon.router.closeSession(link.sessionId).catch(() => undefined);
    this.log.info({ clientId: this.clientId, connectionId: link.connectionId }, 'session closed');
  }

  /**
   * The connection dropped without disconnect: a resumable session waits the grace period for a connection to
   * take it up (here or on another instance), then closes, unless another instance serves it by then.
   */
  private keep(link: Link): void {
    this.link = undefined;
    this.daemon.linked.delete(link.sessionId);
    for (const stop of link.stop) stop();
    const { router, cluster } = this.daemon.options;
    const servedBy = cluster?.instanceId;
    const { sessionId } = link;
    this.daemon.kept.keep(sessionId, router.gracePeriodMs, async () => {
      const session = await router.getSession(sessionId).catch(() => undefined);
      if (session === undefined || session.servedBy !== servedBy || this.daemon.linked.has(sessionId)) return;
      await router.closeSession(sessionId).catch(() => undefined);
      this.log.info({ clientId: this.clientId, sessionId }, 'session closed: its client did not come back');
    });
    this.log.info({ clientId: this.clientId, sessionId, gracePeriodMs: router.gracePeriodMs }, 'connection dropped; session kept for its client to resume');
  }

  /** MCP-style cancellation of a running tool call; a notification gets no answer, so a bad one is only logged. */
  private cancel(params: unknown): void {
    const checked = parseProxyParams(ProxyMethods.cancelled, params);
    if (!checked.ok) return void this.log.warn({ clientId: this.clientId, error: checked.error.message }, 'unreadable cancellation dropped');
    this.calls.get(checked.value.requestId)?.abort();
  }

  /** A tool call: its id mapped to "<connectionId>:<id>" as the envelope's originId, so the browser side can tell calls apart. */
  private async forward(request: JsonRpcRequest): Promise<unknown> {
    const link = this.link;
    if (!link) throw new BadRequestError(`"${request.method}" needs a browser: call list_extensions, then connect`);
    const mapped = mapId(link.connectionId, request.id);
    const params = request.params;
    if (params !== undefined && (typeof params !== 'object' || Array.isArray(params))) {
      throw new BadRequestError("params must be an object of the tool's arguments");
    }
    const { tabId, ...payload } = (params ?? {}) as Record<string, unknown>;
    if (tabId !== undefined && (typeof tabId !== 'string' || tabId === '')) throw new BadRequestError('"params.tabId" must be a non-empty string');
    // The answer goes back under the client's own id (the caller answers `request`); `mapped` names the call in logs.
    const controller = new AbortController();
    this.calls.set(request.id, controller);
    try {
      return await runLogged(this.app, this.log, link.sessionId, {
        name: request.method,
        payload,
        originId: mapped,
        signal: controller.signal,
        ...(typeof tabId === 'string' ? { tabId } : {}),
      });
    } finally {
      if (this.calls.get(request.id) === controller) this.calls.delete(request.id);
    }
  }

  private onExtension(id: string, state: ExtensionBrowserState): void {
    if (this.link?.extensionId !== id) return;
    if (state === 'reconnecting') this.status('reconnecting', 'the browser disconnected; commands fail until it reconnects');
    else if (state === 'connected') this.status('connected');
  }

  private async onClose(): Promise<void> {
    this.state = 'closed';
    this.stopWatching();
    for (const call of this.calls.values()) call.abort();
    if (this.link?.resumable && !this.link.state) this.keep(this.link);
    else if (this.link) await this.unlink(this.link);
  }
}

/** WebSocket /mcp: the proxy protocol for MCP clients elsewhere (JWT auth when the daemon has a verifier). */
async function proxyEndpointPlugin(app: FastifyInstance): Promise<void> {
  const sockets = new Set<WebSocket>();
  app.get('/mcp', { websocket: true }, (socket, request) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    watchHeartbeat(socket, app.browsermcp.options.heartbeatMs);
    new ProxyClient(app, socket, request.log);
  });
  app.addHook('preClose', async () => {
    for (const socket of sockets) socket.close(1001, 'the daemon is shutting down');
  });
}

export const proxyEndpoint = fp(proxyEndpointPlugin, {
  name: 'browsermcp-proxy-endpoint',
  fastify: '5.x',
  dependencies: ['browsermcp-core', '@fastify/websocket'],
});
export default proxyEndpoint;
