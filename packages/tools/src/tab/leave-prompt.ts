import type { HTTPRequest, Page } from 'puppeteer-core';
import { cdp } from '../engine/cdp.js';
import { ToolError } from '../engine/errors.js';

/** What the tools need of a dialog: puppeteer's Dialog, or a "Leave site?" held in its place (HeldLeave). */
export interface DialogLike {
  type(): string;
  message(): string;
  accept(promptText?: string): Promise<void>;
  dismiss(): Promise<void>;
}

/** The binding (Runtime.addBinding) through which the page says it asked "Leave site?", or that a new beforeunload began. */
export const LEAVE_PROMPT_BINDING = '__browsermcpLeave';

/**
 * For a tab that must never raise Chrome's own "Leave site?": Chrome brings such a tab in front of the person to ask
 * (an agent's tab in the person's browser). Installed before the page's scripts, beside the binding, it keeps the
 * page's beforeunload from asking Chrome and tells the binding that it asked instead, as Chrome would count it:
 * preventDefault, a returnValue or a handler's return value, in a page the user (or agent) has interacted with. The
 * navigation that follows is then held as a beforeunload dialog (TabModals.holdIfAsked). The page is told through a
 * binding because it cannot be asked once its navigation has started: DevTools then evaluates in the next document.
 * Not covered: an `onbeforeunload` attribute on `<body>`, which Chrome reads past any script.
 */
export const LEAVE_PROMPT_SCRIPT = `(() => {
  const tell = (what) => { try { globalThis['${LEAVE_PROMPT_BINDING}']?.(what); } catch {} };
  const ask = () => { if (navigator.userActivation?.hasBeenActive !== false) tell('asked'); };
  const proto = BeforeUnloadEvent.prototype;
  Object.defineProperty(proto, 'returnValue', { configurable: true, get() { return ''; }, set(value) { if (value !== '' && value != null) ask(); } });
  proto.preventDefault = function () { ask(); };
  addEventListener('beforeunload', () => tell('reset'), { capture: true });
  let handler = null;
  addEventListener('beforeunload', (event) => {
    if (typeof handler !== 'function') return;
    const value = handler.call(window, event);
    if (value != null && value !== '') ask();
  });
  Object.defineProperty(window, 'onbeforeunload', { configurable: true, get: () => handler, set: (fn) => { handler = fn; } });
})()`;

/** Makes a tab's pages hold their "Leave site?" for the agent instead of raising Chrome's dialog (see above). */
export async function holdLeavePrompts(page: Page): Promise<void> {
  // The page's own session: a binding calls back only the session that added it, and the tab listens on this one.
  await cdp(page).send('Runtime.addBinding', { name: LEAVE_PROMPT_BINDING });
  await cdp(page).send('Page.addScriptToEvaluateOnNewDocument', { source: LEAVE_PROMPT_SCRIPT, runImmediately: true });
}

/**
 * A "Leave site?" the page asked, held as Chrome would hold its dialog: the navigation waits, paused, until the agent
 * answers. Leave lets it go on; Stay cancels it, and the page stays as it was.
 */
export class HeldLeave implements DialogLike {
  constructor(readonly request: HTTPRequest) {}

  type(): string {
    return 'beforeunload';
  }

  message(): string {
    // Chrome shows its own words, never the page's; puppeteer reports "" for a real one.
    return '';
  }

  async accept(): Promise<void> {
    await this.request.continue().catch((err: unknown) => {
      throw new ToolError(`The page's navigation ended while "Leave site?" waited (${(err as Error).message}); the page is where it was.`);
    });
  }

  async dismiss(): Promise<void> {
    await this.request.abort('aborted').catch(() => undefined);
  }
}
