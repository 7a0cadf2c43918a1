import { afterEach, beforeEach, vi } from 'vitest';
import { errorResponseFor, responseFor, type CommandEnvelope, type ErrorObject } from '@browsermcp/protocol';
import { SessionRouter, type Executor, type ExecutorKind, type RouterOptions } from '../../src/index';

/**
 * An executor without a browser: it records what it is sent, and the test answers through the router the way a
 * real executor would. `command(n)` waits for the n-th command without timers, so it works under fake timers.
 */
export class FakeExecutor implements Executor {
  readonly sent: CommandEnvelope[] = [];
  readonly closedSessions: string[] = [];
  /** The commands the router told it to stop, with why. */
  readonly cancelled: Array<{ wireId: string; reason: 'cancelled' | 'timeout' }> = [];
  readonly #waiters = new Map<number, Array<(command: CommandEnvelope) => void>>();

  constructor(
    readonly router: SessionRouter,
    readonly id = 'browser-1',
    readonly kind: ExecutorKind = 'extension',
  ) {}

  send(command: CommandEnvelope): void {
    this.sent.push(command);
    const index = this.sent.length - 1;
    for (const resolve of this.#waiters.get(index) ?? []) resolve(command);
    this.#waiters.delete(index);
  }

  async closeSession(sessionId: string): Promise<void> {
    this.closedSessions.push(sessionId);
  }

  cancel(command: CommandEnvelope, reason: 'cancelled' | 'timeout'): void {
    this.cancelled.push({ wireId: command.wireId, reason });
  }

  /** The n-th command sent (from 0), now or when it arrives. */
  command(index: number): Promise<CommandEnvelope> {
    const sent = this.sent[index];
    if (sent !== undefined) return Promise.resolve(sent);
    return new Promise((resolve) => {
      const waiting = this.#waiters.get(index) ?? [];
      waiting.push(resolve);
      this.#waiters.set(index, waiting);
    });
  }

  /** Answers `command` with data, optionally naming the tab it ran in. */
  respond(command: CommandEnvelope, data: unknown, tabId?: string): boolean {
    const response = responseFor(command, data);
    return this.router.handleResponse(this.id, tabId === undefined ? response : { ...response, tabId });
  }

  respondError(command: CommandEnvelope, error: ErrorObject): boolean {
    return this.router.handleResponse(this.id, errorResponseFor(command, error));
  }
}

/** Lets queued microtasks (store calls, queue hand-offs) run; no timers involved. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
}

/** A router with one connected FakeExecutor ('browser-1') as its default executor. */
export async function connectedRouter(options: RouterOptions = {}): Promise<{ router: SessionRouter; browser: FakeExecutor }> {
  const router = new SessionRouter({ defaultExecutorId: 'browser-1', ...options });
  const browser = new FakeExecutor(router);
  await router.executorConnected(browser);
  return { router, browser };
}

/**
 * The setup every router test file shares: fake timers, a connected router with `sessions` open (then `setup`), and
 * the router closed after each test. `ready` hands the pair to the file's own `router`/`browser` variables.
 */
export function useConnectedRouter(
  opts: { sessions?: string[]; options?: RouterOptions; setup?: (router: SessionRouter) => Promise<void> },
  ready: (pair: { router: SessionRouter; browser: FakeExecutor }) => void,
): void {
  let current: SessionRouter | undefined;
  beforeEach(async () => {
    vi.useFakeTimers();
    const pair = await connectedRouter(opts.options);
    current = pair.router;
    for (const id of opts.sessions ?? []) await pair.router.openSession(id);
    await opts.setup?.(pair.router);
    ready(pair);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
    vi.useRealTimers();
  });
}
