import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { inPage } from '../engine/in-page.js';
import { defineTabTool } from '../session/tool.js';
import { elementSchema, label, targetSchema } from './common.js';

/** How long a hand-off waits for the person before it answers that nobody did. */
export const HANDOFF_WAIT_MS = 15 * 60_000;

const requestUser = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_request_user',
    title: 'Hand a step to the person',
    description:
      'Ask the person who can see this browser to do a step only a person should do: log in, solve a captcha, confirm a ' +
      'payment. A banner on the tab shows your message with Done / Decline; the call waits (with progress notifications) ' +
      'until they answer, then returns the answer and the page as they left it. Answers at once when no person can ' +
      'see this browser (a headless one).',
    inputSchema: z.object({
      message: z.string().min(1, 'message must not be empty').max(500).describe('What you ask the person to do, in one or two sentences'),
      target: targetSchema.optional().describe('An element to point the person at (a ref or CSS selector), scrolled into view'),
      element: elementSchema,
    }),
    type: 'action',
  },
  async handle(tab, { message, target, element }, response, session) {
    const person = session.host.person;
    if (!person) {
      throw new ToolError(
        'No person can see this browser (it runs headless), so nobody can do this step. Do it yourself if you can, or ask the user in your conversation.',
      );
    }
    // The element the agent names is scrolled into view, and outlined until the person answers (drawn once the
    // banner has moved the page down: the outline is placed where the element then is).
    const outline = (show: boolean) =>
      tab.withElement(target!, async (handle, frame) => {
        if (show) await inPage(frame, 'highlight', handle, undefined);
        else await inPage(frame, 'hideHighlight', handle);
      });
    if (target) await tab.withElement(target, (handle, frame) => inPage(frame, 'scrollToCenter', handle));
    person.waiting(`Waiting for the person: "${message}"`, HANDOFF_WAIT_MS);
    const deadline = Date.now() + HANDOFF_WAIT_MS;
    let answer: 'done' | 'declined' | undefined;
    while (answer === undefined && Date.now() < deadline && !tab.isClosed) {
      try {
        const asking = inPage(tab.page.mainFrame(), 'askPerson', message, person.agentName ?? null);
        // Evaluated after the banner's call, in the same page: it sees the page already moved down.
        if (target) void outline(true).catch(() => undefined);
        answer = await Promise.race([asking, new Promise<undefined>((resolve) => setTimeout(resolve, deadline - Date.now()))]);
        break;
      } catch {
        // The page navigated before the person answered (a login redirects): show the banner on the new page.
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    // Gone with its page when the person moved on (a login redirects): then there is nothing to take away.
    if (target && !tab.isClosed) await outline(false).catch(() => undefined);
    const what = target ? ` (at ${label(target, element)})` : '';
    if (answer === 'done') response.addResult(`The person pressed Done${what}. Take a snapshot to see what they did; the page is below.`);
    else if (answer === 'declined') response.addResult(`The person declined${what}: they will not do "${message}". Ask them what to do instead.`);
    else if (tab.isClosed) throw new ToolError('The person closed the tab instead of answering.');
    else throw new ToolError(`The person did not answer within ${HANDOFF_WAIT_MS / 60_000} minutes.`);
    response.setIncludeSnapshot();
  },
});

export default [requestUser];
