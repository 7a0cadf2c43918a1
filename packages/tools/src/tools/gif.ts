import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { GifRecorder } from '../tab/gif.js';
import { defineTabTool, defineTool } from '../session/tool.js';
import { toBase64 } from '../engine/files.js';

const start = defineTabTool({
  capability: 'gif',
  schema: {
    name: 'browser_gif_start',
    title: 'Start recording a GIF',
    description: 'Start recording what the page shows during the following actions; browser_gif_stop returns the animated GIF.',
    inputSchema: z.object({}),
    type: 'readOnly',
  },
  async handle(tab, _args, response, session) {
    if (session.recorder) throw new ToolError('A GIF is already being recorded; stop it with browser_gif_stop first.');
    const recorder = new GifRecorder();
    await recorder.capture(tab, { background: session.host.background, mask: session.secretMasks });
    session.recorder = recorder;
    response.addResult('Recording: every following action adds a frame. Call browser_gif_stop to get the GIF.');
  },
});

const stop = defineTool({
  capability: 'gif',
  schema: {
    name: 'browser_gif_stop',
    title: 'Stop recording and get the GIF',
    description: 'Stop the recording started by browser_gif_start and return it as an animated GIF (optionally saved).',
    inputSchema: z.object({
      filename: z.string().min(1).optional().describe("Also save the GIF under this file name (relative to the client's workspace, else the output directory)"),
    }),
    type: 'readOnly',
  },
  async handle(session, { filename }, response) {
    const recorder = session.recorder;
    if (!recorder) throw new ToolError('No GIF is being recorded; start one with browser_gif_start.');
    session.recorder = undefined;
    const bytes = recorder.encode();
    if (filename) {
      if (!session.host.files) throw new ToolError('Saving files is not available here; omit filename to get the GIF inline.');
      response.addResult(`Saved the GIF to ${await session.host.files.writeOutput(filename, bytes)}`);
    }
    response.addResult(
      `Recorded ${recorder.frameCount} frame${recorder.frameCount === 1 ? '' : 's'}${recorder.dropped ? ` (${recorder.dropped} more were dropped past the frame limit)` : ''}.`,
    );
    response.addImage(toBase64(bytes), 'image/gif');
  },
});

export default [start, stop];
