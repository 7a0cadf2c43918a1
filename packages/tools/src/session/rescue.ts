import type { ToolSession } from './session.js';
import type { Tab } from '../tab/tab.js';
import { withTimeout } from '../engine/timing.js';

/** How long a page may take to answer a trivial evaluate before it counts as held (a spinning script, a dialog). */
const ANSWER_MS = 500;
/**
 * How much longer about:blank is given to answer the same question before its script is stopped: a new tab's renderer
 * on a loaded machine took more than ANSWER_MS, and a blank page runs no script of its own. (Not other pages: one
 * that spins a second at a time, yielding between, would answer within it.)
 */
const BLANK_ANSWER_MS = 1_500;
/** Terminating a script takes a few ms when it works; a renderer that does not hear it in this long will not. */
const TERMINATE_CAP_MS = 2_000;
/** about:blank with scripts off loads at once; more means the renderer itself is stuck. */
const LEAVE_TIMEOUT_MS = 10_000;

/**
 * Whether the page's main thread answers within `ms`. Any answer counts, an error too (a document between two
 * navigations): only silence means a script or a dialog holds it. It also absorbs a termination left pending when the
 * script ended on its own first (CDP terminates "the current or next execution").
 */
async function answers(tab: Tab, ms: number): Promise<boolean> {
  return answered(asked(tab), ms);
}

/** Asks the page's main thread a trivial question: resolves once it answers (see answers). */
function asked(tab: Tab): Promise<true> {
  return tab
    .cdp()
    .send('Runtime.evaluate', { expression: '0' })
    .then(
      () => true as const,
      () => true as const,
    );
}

async function answered(question: Promise<true>, ms: number): Promise<boolean> {
  return (await withTimeout(question, ms)) ?? false;
}

/** Switches the page's scripts off or on again; a closed tab has none to switch. */
function scripts(tab: Tab, on: boolean): Promise<void> {
  return tab
    .cdp()
    .send('Emulation.setScriptExecutionDisabled', { value: !on })
    .then(
      () => undefined,
      () => undefined,
    );
}

export interface Rescue {
  /** What was done, in words for the answer; empty when the page was free. */
  done: string[];
  /** The tab to go on with: the same one, or a fresh one in its place. */
  tab: Tab;
}

/**
 * Frees a tab that a stopped call (a timeout, a cancel) or a hostile page left held: open dialogs are dismissed, a
 * script that keeps the page from answering is terminated, and a page that still holds on (dialogs that keep coming,
 * a renderer that does not hear the termination) is closed and a fresh tab put in its place. Cheap on a free page:
 * one evaluate. With `leave`, a held page is then left for about:blank before its scripts are on again (see
 * leavePage): a timer would start the script again the moment they were.
 */
export async function rescueTab(session: ToolSession, tab: Tab, options: { leave?: boolean } = {}): Promise<Rescue> {
  if (tab.isClosed) return { done: [], tab };
  const { value, open, arrived } = await tab.dismissingDialogs(async (arrivedSoFar) => {
    const question = asked(tab);
    if (await answered(question, ANSWER_MS)) return { held: false, stuck: false, refused: false };
    // Dialogs that open as fast as they are dismissed come from a script that never yields: nothing gets in between
    // (a termination waits out its cap), so the tab is replaced at once.
    if (arrivedSoFar() > 0) return { held: false, stuck: true, refused: false };
    // A blank page only slow to answer: nothing is stopped, nor said to be.
    if (tab.page.url() === 'about:blank' && (await answered(question, BLANK_ANSWER_MS))) return { held: false, stuck: false, refused: false };
    if (arrivedSoFar() > 0) return { held: false, stuck: true, refused: false };
    // Scripts off first, so that the page's timers cannot start the script again once it is stopped (the switch itself
    // waits for the page's thread: it is not awaited before the termination, which interrupts the thread).
    const off = scripts(tab, false);
    // Chrome refuses this to extensions ("not allowed for untrusted clients"): there the tab is replaced instead.
    let refused = false;
    await withTimeout(
      tab
        .cdp()
        .send('Runtime.terminateExecution')
        .catch(() => (refused = true)),
      TERMINATE_CAP_MS,
    );
    const stuck = refused || !(await answers(tab, ANSWER_MS * 2));
    await withTimeout(off, ANSWER_MS);
    try {
      if (!stuck && options.leave) await leaveForBlank(tab);
    } finally {
      await scripts(tab, true);
    }
    return { held: true, refused, stuck };
  });
  const done: string[] = [];
  const dialogs = open + arrived;
  if (dialogs) done.push(`dismissed ${dialogs === 1 ? 'a dialog' : `${dialogs.toLocaleString('en')} dialogs`}`);
  if (value.held && !value.refused) done.push("stopped the page's script, which kept the page from answering");
  if (!value.stuck && arrived === 0) return { done, tab };
  const url = tab.page.url();
  const fresh = await session.replaceTab(tab);
  const why = value.refused ? 'kept running a script that this browser does not let browsermcp stop' : 'still held on';
  done.push(`closed the tab, whose page (${url}) ${why}, and opened a new one in its place`);
  return { done, tab: fresh };
}

/** Opens about:blank, past a "Leave site?". */
function leaveForBlank(tab: Tab): Promise<unknown> {
  return tab.leavingPage(() => tab.page.goto('about:blank', { timeout: LEAVE_TIMEOUT_MS }));
}

/**
 * Leaves the page for about:blank with scripts off, so nothing it runs (a timer navigating it every 10 ms, a loop
 * that starts again) can hold the tab or interrupt the next navigation; scripts are on again for the next page.
 */
export async function leavePage(tab: Tab): Promise<void> {
  await tab.dismissingDialogs(async () => {
    await tab.cdp().send('Emulation.setScriptExecutionDisabled', { value: true });
    try {
      await leaveForBlank(tab);
    } finally {
      await scripts(tab, true);
    }
  });
}
