import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { toBase64 } from '../engine/files.js';
import { inPage } from '../engine/in-page.js';
import { defineTabTool } from '../session/tool.js';
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
      type: z.enum(['png', 'jpeg', 'webp']).optional().describe("Image format; from the filename's extension when it has one, png otherwise"),
      target: targetSchema.optional().describe('Element to capture (a ref or CSS selector)'),
      element: elementSchema,
      fullPage: z.boolean().optional().describe('Capture the whole scrollable page instead of the viewport'),
      filename: z
        .string()
        .min(1)
        .optional()
        .describe("Also save the image under this file name (relative to the client's workspace, else the output directory)"),
      scale: z
        .enum(['css', 'device'])
        .optional()
        .describe(
          '"css" (default): one image pixel per CSS pixel, the same on every screen; "device": the screen\'s own pixels (sharper on high-density screens)',
        ),
    }),
    type: 'readOnly',
  },
  async handle(tab, { type: given, target, element, fullPage, filename, scale = 'css' }, response, session) {
    if (target && fullPage) throw new ToolError('Pass either target or fullPage, not both.');
    const type = given ?? typeOf(filename);
    const size = await inPage(tab.page.mainFrame(), 'viewportSize');
    // At CSS scale on a high-density screen, Chromium scales the capture down itself (a clip with a scale).
    const shrink = scale === 'css' && size.devicePixelRatio !== 1 ? 1 / size.devicePixelRatio : undefined;
    const format = { format: type, ...(type === 'png' ? {} : { quality: 80 }) } as const;
    const background = { background: session.host.background, mask: session.secretMasks };
    const scaled = shrink ?? 1;
    let bytes: Uint8Array;
    if (target) {
      bytes = await tab.withElement(target, async (handle) => {
        await handle.scrollIntoView();
        const box = await handle.boundingBox();
        if (!box) throw new ToolError(`${label(target, element)} has no size to capture.`);
        // The element's box, from the viewport's into the page's coordinates (where the viewport is scrolled to).
        const view = await tab.viewportClip();
        const clip = { x: box.x + view.x, y: box.y + view.y, width: box.width, height: box.height, scale: scaled };
        return tab.capture({ ...format, clip, captureBeyondViewport: false }, background).catch((err: Error) => {
          if (err instanceof ToolError) throw err;
          throw new ToolError(`Could not capture ${label(target, element)}: ${err.message}`);
        });
      });
    } else if (fullPage) {
      const clip = { x: 0, y: 0, width: size.scrollWidth, height: size.scrollHeight, scale: scaled };
      bytes = await tab.capture({ ...format, clip, captureBeyondViewport: true }, background);
    } else {
      bytes = await tab.capture({ ...format, clip: await tab.viewportClip(scaled), captureBeyondViewport: false }, background);
    }
    if (filename) {
      if (!session.host.files) throw new ToolError('Saving files is not available here; omit filename to get the image inline.');
      const saved = await session.host.files.writeOutput(filename, bytes);
      response.addResult(`Saved the screenshot to ${saved}`);
    } else {
      response.addResult(`Took a screenshot of ${target ? label(target, element) : fullPage ? 'the full page' : 'the viewport'}`);
    }
    response.addImage(toBase64(bytes), `image/${type}`);
  },
});

function typeOf(filename: string | undefined): 'png' | 'jpeg' | 'webp' {
  const ext = filename?.split('.').pop()?.toLowerCase();
  return ext === 'jpg' || ext === 'jpeg' ? 'jpeg' : ext === 'webp' ? 'webp' : 'png';
}

export default [screenshot];
