import type { Page, Protocol } from 'puppeteer-core';
import { cdp } from '../engine/cdp.js';
import { delay } from '../engine/timing.js';

/**
 * Chrome sometimes never tells of a document's commit: seen when the page being left starts a navigation of its own
 * (refused, see own-navigation.ts) between our response and our commit. The document comes in and loads, but neither
 * `Page.frameNavigated` nor the `init` lifecycle event is sent, so puppeteer still holds the old document: its goto
 * waits out the navigation timeout and `page.url()` names the page that was left (a CI run saw both). The same was
 * seen for about:blank, with only its network-idle events arriving (the page left with scripts off, rescue.ts).
 *
 * This reads the main frame from the frame tree and sends what Chrome left out through the page's own session (the
 * commit, then the lifecycle): puppeteer and every listener of the tab see the document that is there. `seen` are the
 * lifecycle events of the document already sent (puppeteer clears them at `init`). Known limit: puppeteer drops a
 * frame's children when it hears of its commit, and those of this document were attached by then, with their
 * contexts; made up for as commits, they would have none (an evaluation in one waits out its timeout), so they are
 * left out: the agent does not see into this document's frames until its next navigation.
 */
export async function replayLostCommit(page: Page, loaderId: string, committed: () => boolean, seen: readonly string[]): Promise<boolean> {
  const client = cdp(page);
  // Events of the document that arrive while this works are sent again too: the `init` sent here clears them.
  const names = [...seen];
  const arrived = (event: Protocol.Page.LifecycleEventEvent): void => {
    if (event.loaderId === loaderId) names.push(event.name);
  };
  client.on('Page.lifecycleEvent', arrived);
  try {
    const { frameTree } = await client.send('Page.getFrameTree');
    // Told meanwhile after all, or another document by now: nothing to make up for.
    if (committed() || frameTree.frame.loaderId !== loaderId || page.isClosed()) return false;
    client.emit('Page.frameNavigated', { frame: frameTree.frame, type: 'Navigation' });
    // Puppeteer takes a commit in a later microtask: the address is the new one before the lifecycle ends its wait.
    await delay(0);
    client.off('Page.lifecycleEvent', arrived);
    const lifecycle = (name: string): Protocol.Page.LifecycleEventEvent => ({ frameId: frameTree.frame.id, loaderId, name, timestamp: 0 });
    // about:blank is loaded as it commits: its DOMContentLoaded and load were lost with the commit.
    const blank = frameTree.frame.url === 'about:blank' ? ['DOMContentLoaded', 'load'] : [];
    for (const name of ['init', ...blank, ...names]) client.emit('Page.lifecycleEvent', lifecycle(name));
    return true;
  } finally {
    client.off('Page.lifecycleEvent', arrived);
  }
}
