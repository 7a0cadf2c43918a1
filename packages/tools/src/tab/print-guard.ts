import type { Page } from 'puppeteer-core';
import { cdp } from '../engine/cdp.js';

/** The binding through which a page says it called window.print(). */
export const PRINT_BINDING = '__browsermcpPrint';

/**
 * window.print() in an agent's page would open Chrome's print preview, which is modal to the tab and stops the page's
 * scripts until someone closes it: every tool on that tab then waits for ever (the Rust book's print.html prints
 * itself 100 ms after load; in the person's browser nothing answered for 90 s). So the page's print does nothing, in
 * every document of the tab, and the agent is told; headless Chrome prints nothing either.
 */
const PRINT_SCRIPT = `(() => {
  const print = function print() { try { globalThis['${PRINT_BINDING}']?.(''); } catch {} };
  Object.defineProperty(window, 'print', { configurable: true, writable: true, value: print });
})()`;

/** Keeps the tab's pages from opening the print dialog; calls `asked` each time one tries. */
export async function holdPrints(page: Page, asked: () => void): Promise<void> {
  const session = cdp(page);
  session.on('Runtime.bindingCalled', (event: { name: string }) => {
    if (event.name === PRINT_BINDING) asked();
  });
  await session.send('Runtime.addBinding', { name: PRINT_BINDING });
  await session.send('Page.addScriptToEvaluateOnNewDocument', { source: PRINT_SCRIPT, runImmediately: true });
}
