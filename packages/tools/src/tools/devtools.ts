import { z } from 'zod';
import { inPage } from '../engine/in-page.js';
import { defineTabTool } from '../session/tool.js';
import { elementSchema, label, targetSchema } from './common.js';

const highlight = defineTabTool({
  capability: 'devtools',
  schema: {
    name: 'browser_highlight',
    title: 'Highlight an element',
    description: 'Draw a box over an element that stays until browser_hide_highlight (to show a person what you mean).',
    inputSchema: z.object({
      element: elementSchema,
      target: targetSchema,
      style: z.string().optional().describe('Extra inline CSS for the box, e.g. "outline: 2px dashed red"'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { element, target, style }, response) {
    await tab.withElement(target, (el, frame) => inPage(frame, 'highlight', el, style));
    response.addResult(`Highlighted ${label(target, element)}`);
  },
});

const hideHighlight = defineTabTool({
  capability: 'devtools',
  schema: {
    name: 'browser_hide_highlight',
    title: 'Hide a highlight',
    description: 'Remove the box browser_highlight drew over an element, or every box when no target is given.',
    inputSchema: z.object({ element: elementSchema, target: targetSchema.optional().describe('The highlighted element; all of them when omitted') }),
    type: 'readOnly',
  },
  async handle(tab, { element, target }, response) {
    const removed = target
      ? await tab.withElement(target, (el, frame) => inPage(frame, 'hideHighlight', el))
      : await inPage(tab.page.mainFrame(), 'hideHighlight', null);
    response.addResult(
      removed
        ? `Removed ${removed === 1 && target ? `the highlight of ${label(target, element)}` : `${removed} highlight${removed === 1 ? '' : 's'}`}`
        : 'Nothing was highlighted.',
    );
  },
});

export default [highlight, hideHighlight];
