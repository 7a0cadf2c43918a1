import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { ExtensionEvents, holdStatement } from '@browsermcp/protocol';
import type { FastifyInstance } from 'fastify';
import { WebSocket, type ClientOptions } from 'ws';
import { browserIdOf, EXTENSION_ID, signToken } from '../../src/index.js';

export const EXTENSION_ORIGIN = `chrome-extension://${EXTENSION_ID}`;

/** A browser's Ed25519 key, as the extension keeps one: its public half in base64url, and the private half. */
interface BrowserKey {
  readonly key: string;
  readonly privateKey: KeyObject;
}

/** The keys of the browsers `idOf` named, by browser id. */
const browserKeys = new Map<string, BrowserKey>();

/**
 * The browser id of a scripted extension called `name`: the hash of a key made from the name (the same name gives the
 * same key in every test), as the extension's id is its key's (the protocol's browser-key.ts). A peer that says hello
 * with such an id sends its key and signs the hold proofs a cluster's daemon asks for.
 */
export function idOf(name: string): string {
  const seed = createHash('sha256').update(`browser key of ${name}`).digest();
  // PKCS#8 of an Ed25519 private key is a fixed prefix, then its 32-byte seed.
  const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
  const key = createPublicKey(privateKey).export({ format: 'jwk' }).x!;
  const id = browserIdOf(key)!;
  browserKeys.set(id, { key, privateKey });
  return id;
}

/** The browser's signature of a hold statement, as the extension answers `prove_hold`. */
export function signHoldAs(browserId: string, instance: string, at: number, user: string | null = null): string {
  const known = browserKeys.get(browserId);
  if (known === undefined) throw new Error(`no key for browser ${browserId}: name it with idOf()`);
  return sign(null, holdStatement(browserId, instance, at, user), known.privateKey).toString('base64url');
}

/** A hold proof of browser `browserId` (named by idOf) that `instance` holds it at `at` for `user`, as a directory entry carries it. */
export function holdFor(browserId: string, instance: string, user: string | null, at = Date.now()): { key: string; at: number; sig: string } {
  return { key: browserKeys.get(browserId)!.key, at, sig: signHoldAs(browserId, instance, at, user) };
}

/** A scripted WebSocket peer: reads messages in order with next(), and knows how its socket closed. */
export class Peer {
  private readonly queue: unknown[] = [];
  private readonly waiting: Array<{ match: (message: unknown) => boolean; resolve: (message: unknown) => void }> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  /** The browser this peer said hello as, when its key is known: it answers `prove_hold` as the extension does. */
  private browserId: string | undefined;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
      const message: any = JSON.parse(data.toString());
      if (message?.type === 'event' && message.name === ExtensionEvents.proveHold && this.browserId !== undefined) {
        const { instance, at, user } = message.payload as { instance: string; at: number; user: string | null };
        this.send(holdProofEvent(instance, at, signHoldAs(this.browserId, instance, at, user)));
        return;
      }
      const i = this.waiting.findIndex((w) => w.match(message));
      if (i >= 0) this.waiting.splice(i, 1)[0]!.resolve(message);
      else this.queue.push(message);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** The next message (in arrival order) that `match` accepts; the others stay queued for later reads. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  next(match: (message: any) => boolean = () => true): Promise<any> {
    const i = this.queue.findIndex(match);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0]);
    return new Promise((resolve) => this.waiting.push({ match, resolve }));
  }

  send(message: unknown): void {
    const hello = message as { name?: unknown; payload?: { browserId?: unknown } };
    if (hello?.name === ExtensionEvents.hello && typeof hello.payload?.browserId === 'string' && browserKeys.has(hello.payload.browserId)) {
      this.browserId = hello.payload.browserId;
    }
    this.ws.send(JSON.stringify(message));
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closed;
  }
}

/** Opens a WebSocket and resolves once it is open (rejects with the HTTP status if the upgrade is refused). */
export function connectPeer(url: string, options: ClientOptions & { origin?: string } = {}): Promise<Peer> {
  const ws = new WebSocket(url, { origin: EXTENSION_ORIGIN, ...options });
  const peer = new Peer(ws);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(peer));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { statusCode: res.statusCode })));
    ws.once('error', reject);
  });
}

/** The hello of browser `browserId`, with its key when idOf made it. */
export function hello(browserId: string, tabs: Array<{ tabId: string; sessionId: string }> = []) {
  const key = browserKeys.get(browserId)?.key;
  return {
    wireId: `hello-${browserId}`,
    sessionId: 'hello',
    type: 'event',
    name: 'hello',
    payload: { browserId, ...(key !== undefined ? { key } : {}), browser: 'Chrome 131', version: '0.1.0', tabs },
  };
}

/** The extension's answer to `prove_hold`. */
export function holdProofEvent(instance: string, at: number, sig: string) {
  return { wireId: `hold-${at}`, sessionId: 'hold', type: 'event', name: ExtensionEvents.holdProof, payload: { instance, at, sig } };
}

/**
 * An extension of `user` on a daemon with auth, scripted up to its hello: it answers authenticate with a token signed
 * by `secret` and says hello as `browserId` (the daemon may still refuse it).
 */
export async function helloAs(base: string, user: string, browserId: string, secret: string): Promise<Peer> {
  const peer = await connectPeer(`${base}/extension`);
  const auth = await peer.next();
  if (auth?.method !== 'authenticate') throw new Error(`expected authenticate, got ${JSON.stringify(auth)}`);
  peer.send({ jsonrpc: '2.0', id: auth.id, result: { name: `${user}'s Chrome`, accessToken: await signToken({ userId: user, secret }) } });
  const authenticated = await peer.next();
  if (authenticated?.method !== 'authenticated') throw new Error(`expected authenticated, got ${JSON.stringify(authenticated)}`);
  peer.send(hello(browserId));
  return peer;
}

/** As helloAs, resolving once the daemon lists the extension as connected. */
export async function authenticatedExtension(app: FastifyInstance, base: string, user: string, browserId: string, secret: string): Promise<Peer> {
  const peer = await helloAs(base, user, browserId, secret);
  for (let i = 0; i < 1000 && !app.browsermcp.extensions.records.get(browserId)?.connection; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  return peer;
}

let nextRpcId = 1;

/** Answers a command the extension `ext` received with a tool result of `text`, from its tab `tabId`. */
export function answerCommand(ext: Peer, command: { wireId: string; sessionId: string; name: string }, text: string, tabId: string): void {
  ext.send({ wireId: command.wireId, sessionId: command.sessionId, type: 'response', name: command.name, data: { content: [{ type: 'text', text }] }, tabId });
}

/** Sends a JSON-RPC request on `peer` and resolves with the answer to it (other messages stay queued). */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
export async function rpc(peer: Peer, method: string, params?: unknown): Promise<any> {
  const id = `rpc-${nextRpcId++}`;
  peer.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
  return peer.next((message) => message.id === id);
}
