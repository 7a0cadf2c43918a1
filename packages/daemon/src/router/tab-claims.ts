import { SessionNotFoundError, TabNotFoundError, TabOwnedError } from '../errors';
import { checkId } from './checks';
import type { RouterStore } from './store';
import type { RouterLogger } from './types';

/** Which tab is whose, as executors report it: a session only ever reaches its own tabs. */
export class TabClaims {
  constructor(
    private readonly store: RouterStore,
    private readonly logger: RouterLogger,
  ) {}

  /**
   * Makes the tab an executor answered with the session's own and its current tab, unless another session owns it.
   * `heldHere`: the browser is this process's; another instance's browser claimed it there already (own()), and only
   * the session's current tab is set here.
   */
  async adopt(sessionId: string, tabId: string, heldHere = true): Promise<void> {
    // The browser already did the work: a bookkeeping failure here is logged, not turned into a failed command.
    try {
      if (heldHere && !(await this.own(sessionId, tabId))) return;
      await this.store.setCurrentTab(sessionId, tabId);
    } catch (error) {
      this.logger.warn({ sessionId, tabId, error }, 'could not record the tab a command ran in');
    }
  }

  /**
   * Claims a tab the browser held here answered with for the session; false (logged) when another session owns it or
   * the session closed meanwhile.
   */
  async own(sessionId: string, tabId: string): Promise<boolean> {
    const owner = await this.store.claimTab(sessionId, tabId).catch((error: unknown) => {
      this.logger.warn({ sessionId, tabId, error }, 'could not record the tab a command ran in');
      return undefined;
    });
    if (owner === undefined) return false; // the session closed meanwhile
    if (owner === sessionId) return true;
    this.logger.warn({ sessionId, tabId }, "an executor answered with another session's tab; ownership unchanged");
    return false;
  }

  /** An executor reports that a tab of its browser belongs to a session; it becomes the session's current tab. */
  async claim(executorId: string, sessionId: string, tabId: string): Promise<void> {
    checkId(executorId, 'executorId');
    checkId(sessionId, 'sessionId');
    checkId(tabId, 'tabId');
    const session = await this.store.getSession(sessionId);
    if (session === undefined || session.executorId !== executorId) throw new SessionNotFoundError(sessionId);
    const owner = await this.store.claimTab(sessionId, tabId);
    if (owner === undefined) throw new SessionNotFoundError(sessionId);
    if (owner !== sessionId) throw new TabOwnedError(tabId);
    await this.store.setCurrentTab(sessionId, tabId);
  }

  /** Throws unless `tabId` of the executor's browser is the session's own (TabNotFound, TabOwnedByOtherSession). */
  checkOwner(executorId: string, sessionId: string, tabId: string): Promise<void> {
    return checkTabOwner(this.store, executorId, sessionId, tabId);
  }

  /** An executor reports that a tab closed; true if it was a session's. */
  async release(executorId: string, tabId: string): Promise<boolean> {
    checkId(executorId, 'executorId');
    checkId(tabId, 'tabId');
    return (await this.store.releaseTab(executorId, tabId)) !== undefined;
  }
}

/**
 * Throws unless `tabId` of the executor's browser is the session's own in `store` (TabNotFound,
 * TabOwnedByOtherSession): the check before a command, made where the browser is held (the router's own browsers, and
 * a cluster instance's before it runs a command another asked).
 */
export async function checkTabOwner(store: RouterStore, executorId: string, sessionId: string, tabId: string): Promise<void> {
  const owner = await store.getTabOwner(executorId, tabId);
  if (owner === undefined) throw new TabNotFoundError(tabId);
  if (owner !== sessionId) throw new TabOwnedError(tabId);
}
