import type { SessionRouter } from '@browsermcp/daemon';
import { ExtensionEvents, parseWaitingForPerson } from '@browsermcp/protocol';

/**
 * What a daemon session's running call waits for, when the browser says it waits for the person (a new agent to
 * approve, a hand-off) or for itself to start: the gateway puts it in the call's progress notifications.
 */
export class CallWaits {
  private readonly messages = new Map<string, string>();

  /** Listens to the daemon session's events until the returned function is called. */
  watch(router: SessionRouter, daemonSessionId: string): () => void {
    return router.onEvent(daemonSessionId, (event) => {
      if (event.name !== ExtensionEvents.waitingForPerson && event.name !== ExtensionEvents.waitingForBrowser) return;
      const waiting = parseWaitingForPerson(event.payload);
      if (waiting.ok) this.messages.set(daemonSessionId, waiting.value.message);
    });
  }

  of(daemonSessionId: string): string | undefined {
    return this.messages.get(daemonSessionId);
  }

  /** The call ended: what it waited for is over. */
  done(daemonSessionId: string): void {
    this.messages.delete(daemonSessionId);
  }
}
