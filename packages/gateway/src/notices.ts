import type { BrowserNotice } from './backend.js';

/** A log line for news of the person's browser (--extension): one sentence, and the fields to search by. */
export function describeNotice(notice: BrowserNotice): { fields: Record<string, string>; message: string } {
  if (notice.kind === 'stopped') {
    const how =
      notice.via === 'debugger_bar'
        ? "Cancel on Chrome's debugging bar; browsermcp is paused in that browser"
        : notice.via === 'popup'
          ? 'Stop in the browsermcp popup'
          : "in the popup or on Chrome's debugging bar";
    return { fields: { session: notice.session.slice(0, 8) }, message: `the person stopped this agent in their browser (${how})` };
  }
  const who = notice.name ? `"${notice.name}"` : 'the browser';
  const fields = { browser: notice.browser };
  switch (notice.state) {
    case 'connected':
      return { fields, message: `extension connected: ${who}` };
    case 'reconnecting':
      return { fields, message: `extension disconnected: ${who}; its agents' sessions wait for it to come back (grace period)` };
    case 'gone':
      return { fields, message: `extension gone: ${who} did not come back; its agents' sessions closed` };
  }
}
