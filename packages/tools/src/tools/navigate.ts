import { z } from 'zod';
import { navigationCutOff, navigationErrorCode, timedOut } from '../engine/browser-errors.js';
import { ToolError } from '../engine/errors.js';
import { codeArg } from '../engine/codegen.js';
import { addCode } from '../session/record-code.js';
import { leavePage, rescueTab } from '../session/rescue.js';
import type { HTTPResponse, Protocol } from 'puppeteer-core';
import type { Tab } from '../tab/tab.js';
import { defineTabTool, defineTool } from '../session/tool.js';
import { normalizeUrl } from './common.js';
import { delay } from '../engine/timing.js';

const navigate = defineTool({
  capability: 'core',
  schema: {
    name: 'browser_navigate',
    title: 'Navigate to a URL',
    description: 'Open a URL in the current tab (a tab is opened if none is). Returns the page snapshot.',
    inputSchema: z.object({ url: z.string().min(1, 'url must not be empty').describe('The URL to open') }),
    type: 'action',
  },
  async handle(session, { url }, response) {
    const href = normalizeUrl(url, session.config);
    // Navigating always gets the session out of the page, however it fights: dialogs are dismissed, as a person
    // closing the tab would; a script that holds the page is stopped and the page left with scripts off; a page that
    // still holds on is replaced by a fresh tab.
    const before = await session.currentTab();
    const leaving = before.page.url();
    const { done, tab } = await rescueTab(session, before, { leave: true });
    if (done.length) response.addResult(`To leave ${leaving}, browsermcp ${done.join(', ')}.`);
    tab.guard.reset();
    try {
      const replaced = await goto(tab, href, session.config.navigationTimeoutMs, () => session.replaceTab(tab));
      if (replaced) response.addResult(`${leaving} kept navigating itself: browsermcp closed its tab and opened ${href} in a new one in its place.`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const code = navigationErrorCode(err);
      // A download or a navigation aborted by the page still leaves a usable tab.
      const refused = tab.guard.last;
      if (code === 'ERR_BLOCKED_BY_CLIENT' && refused) {
        session.forgetRefusals();
        throw new ToolError(`Navigation to ${href} was stopped at ${refused.url}: ${refused.why}`);
      }
      if (code === 'ERR_ABORTED') {
        response.addResult(`Navigation to ${href} was aborted by the page (a download or a redirect that was cancelled).`);
      } else {
        throw new ToolError(`Navigation to ${href} failed: ${message.split('\n')[0]}. Check the URL and that the site is reachable.`);
      }
    }
    addCode(session, response, [{ on: 'page', method: 'goto', args: [codeArg.string(href)] }]);
    response.setIncludeSnapshot().askPage();
  },
});

/**
 * Opens `href`, past a beforeunload "Leave site?". A page that navigates itself (a timer every 10 ms) can cut our
 * navigation off, or land its own document in place of ours: then it is left with its scripts off and `href` opened
 * again, once, and if it still wins the tab is replaced (true). A download also aborts a navigation, but leaves the
 * page where it was; a redirect is ours.
 */
async function goto(tab: Tab, href: string, timeout: number, replace: () => Promise<Tab>): Promise<boolean> {
  const page = tab.page;
  const before = page.url();
  const open = (on: Tab) => on.leavingPage(() => on.page.goto(href, { waitUntil: 'domcontentloaded', timeout }), href);
  try {
    // The document that came in is the answer to our request (or a redirect of it), not one the page asked for.
    if (await openedOurs(tab, () => open(tab), href)) return false;
  } catch (err) {
    if (!navigationCutOff(err) || !(await cutOffByPage(tab, before))) throw err;
  }
  try {
    await leavePage(tab);
    await open(tab);
    return false;
  } catch (err) {
    // Some pages still win (in the person's browser scripts cannot be switched off): a fresh tab in its place. Leaving
    // for about:blank may itself never end while such a page keeps navigating (a CI run saw it time out): the same.
    if (!navigationCutOff(err) && !(timedOut(err) && tab.pageNavigatedDuringOurs)) throw err;
    await open(await replace());
    return true;
  }
}

/** How long a cut-off navigation waits for signs that the page did it (its events can trail the error). */
const CUT_OFF_SETTLE_MS = 300;

/**
 * Whether the page cut our navigation off: it tried a navigation of its own meanwhile, or is no longer where it was.
 * A download also aborts a navigation, and leaves the page in place.
 */
async function cutOffByPage(tab: Tab, before: string): Promise<boolean> {
  const deadline = Date.now() + CUT_OFF_SETTLE_MS;
  for (;;) {
    if (tab.pageNavigatedDuringOurs || tab.page.url() !== before) return true;
    if (Date.now() >= deadline) return false;
    await delay(25);
  }
}

/**
 * Runs `open` and tells whether the document it ended on is the answer to a request for `href` (directly or through
 * redirects); a navigation within the document (no response) counts as ours. `href` is normalized as the browser
 * spells it, #fragment included. Puppeteer's goto ends at the first new document to reach DOMContentLoaded, and one
 * the page navigated to while ours was on its way ends it too, with our response: so the document the tab shows when
 * goto ends must also be the one our request (the last of its redirects) loaded.
 */
async function openedOurs(tab: Tab, open: () => Promise<HTTPResponse | null>, href: string): Promise<boolean> {
  const client = tab.cdp();
  let shown: string | undefined;
  const committed = ({ frame }: Protocol.Page.FrameNavigatedEvent): void => {
    if (frame.parentId === undefined) shown = frame.url + (frame.urlFragment ?? '');
  };
  client.on('Page.frameNavigated', committed);
  try {
    // Read in the turn goto ends: a later commit (the page navigating on from ours) is not the question.
    const [response, document] = await open().then((r) => [r, shown] as const);
    if (!response) return true;
    const request = response.request();
    return (request.redirectChain()[0] ?? request).url() === href && (document === undefined || document === request.url());
  } finally {
    client.off('Page.frameNavigated', committed);
  }
}

/**
 * Whether going back (-1) or forward (+1) in the tab's history lands on a page: not past the history's own end, nor,
 * going back, on the blank page a new tab starts on (no page of the agent's).
 */
async function canStep(tab: Tab, step: -1 | 1): Promise<boolean> {
  const { currentIndex, entries } = await tab.cdp().send('Page.getNavigationHistory');
  const entry = entries[currentIndex + step];
  return entry !== undefined && !(step === -1 && currentIndex + step === 0 && entry.url === 'about:blank');
}

const back = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_navigate_back',
    title: 'Go back',
    description: 'Go back to the previous page in the current tab history.',
    inputSchema: z.object({}),
    type: 'action',
  },
  async handle(tab, _args, response, session) {
    if (!(await canStep(tab, -1))) {
      response.addResult(`There is no previous page in this tab: it stays on ${tab.page.url()}.`);
    } else {
      await tab.page.goBack({ waitUntil: 'domcontentloaded', timeout: session.config.navigationTimeoutMs });
      addCode(session, response, [{ on: 'page', method: 'goBack' }]);
    }
    response.setIncludeSnapshot().askPage();
  },
});

const forward = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_navigate_forward',
    title: 'Go forward',
    description: 'Go forward to the next page in the current tab history.',
    inputSchema: z.object({}),
    type: 'action',
  },
  async handle(tab, _args, response, session) {
    if (!(await canStep(tab, 1))) {
      response.addResult(`There is no next page in this tab: it stays on ${tab.page.url()}.`);
    } else {
      await tab.page.goForward({ waitUntil: 'domcontentloaded', timeout: session.config.navigationTimeoutMs });
      addCode(session, response, [{ on: 'page', method: 'goForward' }]);
    }
    response.setIncludeSnapshot().askPage();
  },
});

export default [navigate, back, forward];
