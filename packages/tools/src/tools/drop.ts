import { z } from 'zod';
import { inPage } from '../engine/in-page.js';
import { ToolError } from '../engine/errors.js';
import type { UploadFile } from '../session/session.js';
import { defineTabTool } from '../session/tool.js';
import { elementSchema, label, targetSchema } from './common.js';

const drop = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_drop',
    title: 'Drop files or data onto an element',
    description: 'Drop files and/or MIME-typed data onto an element, as if dragged from outside the page. Give paths, data or both.',
    inputSchema: z.object({
      element: elementSchema,
      target: targetSchema,
      paths: z.array(z.string().min(1, 'a path must not be empty')).optional().describe('Absolute paths of files to drop'),
      data: z
        .record(z.string().min(1), z.string())
        .optional()
        .describe('Data to drop by MIME type, e.g. {"text/plain": "hello", "text/uri-list": "https://example.com"}'),
    }),
    type: 'action',
  },
  inputPaths: ({ paths }) => paths ?? [],
  async handle(tab, { element, target, paths = [], data = {} }, response, session) {
    if (!paths.length && !Object.keys(data).length) throw new ToolError('Give paths, data or both: there is nothing to drop.');
    let files: Array<Extract<UploadFile, { data: string }>> = [];
    if (paths.length) {
      const access = session.host.files;
      if (!access) throw new ToolError('Dropping files is not available here: this browser host gives the tools no file access. Drop data instead.');
      const resolved = await Promise.all(paths.map((p) => access.resolveUpload(p, { contents: true })));
      files = resolved.flatMap((f) => ('data' in f ? [f] : []));
      if (files.length !== paths.length) throw new ToolError('This browser host cannot give the contents of files to drop.');
    }
    // The same in every host: the page gets dragenter, dragover and drop events carrying the data and the files.
    await tab.withElement(target, async (el, frame) => {
      await tab.actionPoint(el, frame, label(target, element), false, session.config.actionTimeoutMs);
      await tab.runAction(() => inPage(frame, 'dropOn', el, data, files));
    });
    const what = [...paths, ...Object.keys(data).map((t) => `${t} data`)].join(', ');
    response.addResult(`Dropped ${what} onto ${label(target, element)}`);
    response.setIncludeSnapshot();
  },
});

export default [drop];
