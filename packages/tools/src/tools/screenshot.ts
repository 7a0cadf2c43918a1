import { z } from 'zod';
import { ToolError } from '../errors.js';
import { toBase64 } from '../files.js';
import { defineTabTool } from '../tool.js';
import { elementSchema, label, targetSchema } from './common.js';

const screenshot = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_take_screenshot',
    title: 'Take a screenshot',
    description:
      'Take a screenshot of the viewport, the full page or one element. Use browser_snapshot to decide on actions; ' +
      'screenshots are for seeing how the page looks.',
    inputSchema: z.object({
      type: z.enum(['png', 'jpeg']).optional().describe('Image format, png by default'),
      target: targetSchema.optional().describe('Element to capture (a ref or CSS selector)'),
      element: elementSchema,
      fullPage: z.boolean().optional().describe('Capture the whole scrollable page instead of the viewport'),
      filename: z.string().min(1).optional().describe('Also save the image under this file name in the output directory'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { type = 'png', target, element, fullPage, filename }, response, session) {
    if (target && fullPage) throw new ToolError('Pass either target or fullPage, not both.');
    const options = { type, ...(type === 'jpeg' ? { quality: 80 } : {}), encoding: 'binary' as const };
    const background = { background: session.host.background };
    let bytes: Uint8Array;
    if (target) {
      bytes = await tab.withElement(target, (handle) =>
        tab.capture(() => handle.screenshot(options), background).catch((err: Error) => {
          if (err instanceof ToolError) throw err;
          throw new ToolError(`Could not capture ${label(target, element)}: ${err.message}`);
        }),
      );
    } else {
      bytes = await tab.capture(() => tab.page.screenshot({ ...options, fullPage: fullPage === true }), background);
    }
    if (filename) {
      if (!session.host.files) throw new ToolError('Saving files is not available here; omit filename to get the image inline.');
      const saved = await session.host.files.writeOutput(filename, bytes);
      response.addResult(`Saved the screenshot to ${saved}`);
    } else {
      response.addResult(`Took a screenshot of ${target ? label(target, element) : fullPage ? 'the full page' : 'the viewport'}`);
    }
    response.addImage(toBase64(bytes), type === 'png' ? 'image/png' : 'image/jpeg');
  },
});

export default [screenshot];
