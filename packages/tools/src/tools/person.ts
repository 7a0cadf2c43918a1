import { z } from 'zod';
import { ToolError } from '../errors.js';
import { defineTabTool } from '../tool.js';
import { elementSchema, label, targetSchema } from './common.js';

/** How long a hand-off waits for the person before it answers that nobody did. */
export const HANDOFF_WAIT_MS = 15 * 60_000;

/**
 * In-page: a banner at the top of the tab with the agent's message and Done / Decline; resolves with the person's
 * answer. Only a real click counts (`isTrusted`): the page's own scripts cannot answer for the person. Sent alone
 * to the page (no module scope), and shown again if the page navigates before the answer.
 */
function askPerson(message: string): Promise<'done' | 'declined'> {
  document.getElementById('browsermcp-ask')?.remove();
  const host = document.createElement('div');
  host.id = 'browsermcp-ask';
  host.style.cssText = 'position:fixed;inset:0 0 auto 0;z-index:2147483647;';
  const root = host.attachShadow({ mode: 'open' });
  root.innerHTML =
    '<style>div{display:flex;gap:12px;align-items:center;padding:10px 16px;background:#fff8c5;color:#1f2328;' +
    'font:14px/1.4 system-ui,sans-serif;border-bottom:2px solid #9a6700;box-shadow:0 2px 6px #0003}' +
    'p{margin:0;flex:1}b{margin-right:6px}button{font:inherit;padding:4px 12px;border-radius:6px;border:1px solid #1f2328;background:#fff;cursor:pointer}' +
    '#done{background:#1a7f37;border-color:#1a7f37;color:#fff}</style>' +
    '<div role="alertdialog" aria-label="An agent asks you"><p><b>An agent asks you:</b><span id="message"></span></p>' +
    '<button id="done">Done</button><button id="decline">Decline</button></div>';
  (root.getElementById('message') as HTMLElement).textContent = message;
  document.documentElement.append(host);
  return new Promise((resolve) => {
    const answer = (value: 'done' | 'declined') => (event: Event) => {
      if (!event.isTrusted) return;
      host.remove();
      resolve(value);
    };
    root.getElementById('done')!.addEventListener('click', answer('done'));
    root.getElementById('decline')!.addEventListener('click', answer('declined'));
  });
}

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
    if (target) {
      await tab.withElement(target, (handle) => handle.evaluate((el) => el.scrollIntoView({ block: 'center' })));
    }
    person.waiting(`Waiting for the person: "${message}"`, HANDOFF_WAIT_MS);
    const deadline = Date.now() + HANDOFF_WAIT_MS;
    let answer: 'done' | 'declined' | undefined;
    while (answer === undefined && Date.now() < deadline && !tab.isClosed) {
      try {
        answer = await Promise.race([
          tab.page.evaluate(askPerson, message),
          new Promise<undefined>((resolve) => setTimeout(resolve, deadline - Date.now())),
        ]);
        break;
      } catch {
        // The page navigated before the person answered (a login redirects): show the banner on the new page.
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    const what = target ? ` (at ${label(target, element)})` : '';
    if (answer === 'done') response.addResult(`The person pressed Done${what}. Take a snapshot to see what they did; the page is below.`);
    else if (answer === 'declined') response.addResult(`The person declined${what}: they will not do "${message}". Ask them what to do instead.`);
    else if (tab.isClosed) throw new ToolError('The person closed the tab instead of answering.');
    else throw new ToolError(`The person did not answer within ${HANDOFF_WAIT_MS / 60_000} minutes.`);
    response.setIncludeSnapshot();
  },
});

export default [requestUser];
