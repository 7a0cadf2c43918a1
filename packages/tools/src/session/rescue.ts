import type { ToolSession } from './session.js';
import type { Tab } from '../tab/tab.js';
import { withTimeout } from '../engine/timing.js';

/** How long a page may take to answer a trivial evaluate before it counts as held (a spinning script, a dialog). */
const ANSWER_MS = 500;
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
  const answered = tab
    .cdp()
    .send('Runtime.evaluate', { expression: '0' })
    .then(
      () => true,
      () => true,
    );
  return (await withTimeout(answered, ms)) ?? false;
}

export interface Rescue {
  /** What was done, in words for the answer; empty when the page was free. */
  done: string[];
  /** The tab to go on with: the same one, or a fresh one in its place. */
  tab: Tab;
  /** A script held the page and was stopped: it may start again (a timer), so a navigation leaves the page first. */
  held: boolean;
}

/**
 * Frees a tab that a stopped call (a timeout, a cancel) or a hostile page left held: open dialogs are dismissed, a
 * script that keeps the page from answering is terminated, and a page that still holds on (dialogs that keep coming,
 * a renderer that does not hear the termination) is closed and a fresh tab put in its place. Cheap on a free page:
 * one evaluate.
 */
export async function rescueTab(session: ToolSession, tab: Tab): Promise<Rescue> {
  if (tab.isClosed) return { done: [], tab, held: false };
  const { value, open, arrived } = await tab.dismissingDialogs(async () => {
    if (await answers(tab, ANSWER_MS)) return { held: false, stuck: false, refused: false };
    // Chrome refuses this to extensions ("not allowed for untrusted clients"): there the tab is replaced instead.
    let refused = false;
    await withTimeout(
      tab
        .cdp()
        .send('Runtime.terminateExecution')
        .catch(() => (refused = true)),
      TERMINATE_CAP_MS,
    );
    return { held: true, refused, stuck: refused || !(await answers(tab, ANSWER_MS * 2)) };
  });
  const done: string[] = [];
  const dialogs = open + arrived;
  if (dialogs) done.push(`dismissed ${dialogs === 1 ? 'a dialog' : `${dialogs.toLocaleString('en')} dialogs`}`);
  if (value.held && !value.refused) done.push("stopped the page's script, which kept the page from answering");
  // Dialogs that open as fast as they are dismissed come from a script that never yields: no navigation commits there.
  if (!value.stuck && arrived === 0) return { done, tab, held: value.held };
  const url = tab.page.url();
  const fresh = await session.replaceTab(tab);
  const why = value.refused ? 'kept running a script that this browser does not let browsermcp stop' : 'still held on';
  done.push(`closed the tab, whose page (${url}) ${why}, and opened a new one in its place`);
  return { done, tab: fresh, held: false };
}

/**
 * Leaves the page for about:blank with scripts off, so nothing it runs (a timer navigating it every 10 ms, a loop
 * that starts again) can hold the tab or interrupt the next navigation; scripts are on again for the next page.
 */
export async function leavePage(tab: Tab): Promise<void> {
  const client = tab.cdp();
  await tab.dismissingDialogs(async () => {
    await client.send('Emulation.setScriptExecutionDisabled', { value: true });
    try {
      await tab.leavingPage(() => tab.page.goto('about:blank', { timeout: LEAVE_TIMEOUT_MS }));
    } finally {
      await client.send('Emulation.setScriptExecutionDisabled', { value: false }).catch(() => undefined);
    }
  });
}
