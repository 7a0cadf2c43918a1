import { z } from 'zod';
import { ToolError } from '../errors.js';
import { defineTabTool } from '../tool.js';

const TEXT_TIMEOUT_MS = 30_000;

function bodyHasText(text: string, present: boolean): boolean {
  const body = document.body;
  const has = !!body && body.innerText.includes(text);
  return has === present;
}

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
  async handle(tab, { time, text, textGone }, response) {
    const frame = tab.page.mainFrame();
    if (time !== undefined) await new Promise((r) => setTimeout(r, time * 1000));
    const wait = async (needle: string, present: boolean) => {
      try {
        await frame.waitForFunction(bodyHasText, { polling: 'mutation', timeout: TEXT_TIMEOUT_MS }, needle, present);
      } catch (err) {
        if (err instanceof Error && /Waiting failed|timeout/i.test(err.message)) {
          throw new ToolError(
            `${JSON.stringify(needle)} was still ${present ? 'not on' : 'on'} the page after ${TEXT_TIMEOUT_MS / 1000} s. Take a snapshot to see the page as it is.`,
          );
        }
        throw err;
      }
    };
    if (textGone !== undefined) await wait(textGone, false);
    if (text !== undefined) await wait(text, true);
    const waited = [time !== undefined && `${time} s`, text !== undefined && `text ${JSON.stringify(text)} to appear`, textGone !== undefined && `text ${JSON.stringify(textGone)} to disappear`].filter(Boolean);
    response.addResult(`Waited for ${waited.join(' and ')}`);
    response.setIncludeSnapshot();
  },
});

export default [waitFor];
