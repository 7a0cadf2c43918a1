import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { inPage } from '../engine/in-page.js';
import { defineTabTool } from '../session/tool.js';

const TEXT_TIMEOUT_MS = 30_000;

const waitFor = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_wait_for',
    title: 'Wait',
    description: 'Wait until text appears, until text disappears, or for a number of seconds.',
    inputSchema: z
      .object({
        time: z.number().min(0).max(60).optional().describe('Seconds to wait (at most 60)'),
        text: z.string().min(1).optional().describe('Wait until this text is visible on the page'),
        textGone: z.string().min(1).optional().describe('Wait until this text is no longer visible'),
      })
      .refine((a) => a.time !== undefined || a.text !== undefined || a.textGone !== undefined, {
        message: 'Pass at least one of time, text or textGone',
      }),
    type: 'readOnly',
  },
  async handle(tab, { time, text, textGone }, response, session) {
    if (time !== undefined) await sleep(time * 1000, session.signal);
    const wait = async (needle: string, present: boolean) => {
      const deadline = Date.now() + TEXT_TIMEOUT_MS;
      while (Date.now() < deadline) {
        try {
          // Checked in the page at every DOM change; a navigation ends the call, and the new page is checked again.
          if (await inPage(tab.page.mainFrame(), 'waitForText', needle, present, Math.max(1, deadline - Date.now()))) return;
        } catch (err) {
          if (tab.isClosed) throw err;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      throw new ToolError(
        `${JSON.stringify(needle)} was still ${present ? 'not on' : 'on'} the page after ${TEXT_TIMEOUT_MS / 1000} s. Take a snapshot to see the page as it is.`,
      );
    };
    if (textGone !== undefined) await wait(textGone, false);
    if (text !== undefined) await wait(text, true);
    const waited = [
      time !== undefined && `${time} s`,
      text !== undefined && `${JSON.stringify(text)} to appear`,
      textGone !== undefined && `${JSON.stringify(textGone)} to disappear`,
    ].filter(Boolean);
    response.addResult(`Waited for ${waited.join(' and ')}`);
    response.setIncludeSnapshot();
  },
});

/** A wait the call's stop signal ends early, so a cancelled wait holds no timer for its full length. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export default [waitFor];
