import { parseRef } from '../engine/refs.js';
import type { ToolSession } from './session.js';

/** Remembers which tab the answer being sent speaks of: the model's next refs come from it. */
export function rememberAnsweredTab(session: ToolSession): void {
  const tab = session.peekCurrentTab();
  session.answeredTab = tab ? { tab, index: session.tabs.indexOf(tab), url: tab.page.url() } : undefined;
}

/**
 * Why the refs in a call cannot be used, or undefined. Refs are numbered per tab (`e2` in one tab is another element
 * in the next): when the session's current tab changed since the last answer without the model asking (the tab it
 * looked at closed, or a page's late popup took its place), a ref would land on an element the model never saw.
 */
export function staleRefReason(session: ToolSession, args: unknown): string | undefined {
  const answered = session.answeredTab;
  const current = session.peekCurrentTab();
  if (answered === undefined || current === undefined || answered.tab === current) return undefined;
  const refs = refArguments(args);
  if (!refs.length) return undefined;
  const gone = session.tabs.includes(answered.tab) ? 'is no longer the current tab' : 'was closed';
  return (
    `${refs.length > 1 ? 'Refs' : 'Ref'} ${refs.join(', ')} came from tab ${answered.index} (${answered.url}), which ${gone}; ` +
    `the session is now on tab ${session.tabs.indexOf(current)} (${current.page.url()}). Nothing was done: take a snapshot (browser_snapshot) and use a ref from it, or select the tab with browser_tabs.`
  );
}

/** The refs a call's arguments name: its targets (`target`, `startTarget`, …), also inside lists (fill_form's fields). */
function refArguments(args: unknown): string[] {
  const refs: string[] = [];
  const scan = (value: unknown, depth: number): void => {
    if (Array.isArray(value)) {
      if (depth < 2) for (const item of value) scan(item, depth + 1);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === 'string' && /target$/i.test(key) && parseRef(v)) refs.push(v);
      else if (depth < 2) scan(v, depth + 1);
    }
  };
  scan(args, 0);
  return refs;
}
