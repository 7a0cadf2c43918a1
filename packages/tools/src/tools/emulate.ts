import { z } from 'zod';
import { defineTabTool } from '../session/tool.js';

// Media features by their CSS names, as Chromium emulates them.
const FEATURES = {
  colorScheme: 'prefers-color-scheme',
  reducedMotion: 'prefers-reduced-motion',
  forcedColors: 'forced-colors',
  contrast: 'prefers-contrast',
} as const;

const emulateMedia = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_emulate_media',
    title: 'Emulate CSS media',
    description:
      'Emulate CSS media features for the current tab, e.g. the dark color scheme. Omitted parameters are left as they ' + 'are; null clears an override.',
    inputSchema: z.object({
      colorScheme: z.enum(['light', 'dark']).nullable().optional().describe('prefers-color-scheme'),
      reducedMotion: z.enum(['reduce', 'no-preference']).nullable().optional().describe('prefers-reduced-motion'),
      forcedColors: z.enum(['active', 'none']).nullable().optional().describe('forced-colors'),
      contrast: z.enum(['more', 'no-preference']).nullable().optional().describe('prefers-contrast'),
      media: z.enum(['screen', 'print']).nullable().optional().describe('The CSS media type'),
    }),
    type: 'action',
  },
  async handle(tab, args, response) {
    const state = tab.media;
    for (const key of Object.keys(FEATURES) as Array<keyof typeof FEATURES>) {
      const value = args[key];
      if (value === null) delete state.features[FEATURES[key]];
      else if (value !== undefined) state.features[FEATURES[key]] = value;
    }
    if (args.media !== undefined) state.type = args.media;
    // One call with the whole state: Chromium forgets any feature or media type a call leaves out.
    await tab.cdp().send('Emulation.setEmulatedMedia', {
      media: state.type ?? '',
      features: Object.entries(state.features).map(([name, value]) => ({ name, value })),
    });
    const now = [...Object.entries(state.features).map(([name, value]) => `${name}: ${value}`), ...(state.type ? [`media: ${state.type}`] : [])];
    response.addResult(now.length ? `Emulating ${now.join(', ')}` : 'No media emulation: the page sees the browser as it is.');
    response.setIncludeSnapshot();
  },
});

export default [emulateMedia];
