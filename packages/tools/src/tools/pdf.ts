import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { defineTabTool } from '../session/tool.js';

const pdfSave = defineTabTool({
  capability: 'pdf',
  schema: {
    name: 'browser_pdf_save',
    title: 'Save as PDF',
    description: "Save the current page as a PDF file (filename: relative to the client's workspace; by default in the output directory).",
    inputSchema: z.object({
      filename: z.string().min(1).optional().describe('File name, page-<timestamp>.pdf by default'),
    }),
    type: 'readOnly',
  },
  savesFiles: true,
  async handle(tab, { filename }, response, session) {
    const files = session.host.files;
    if (!files) throw new ToolError('Saving files is not available in this browser host.');
    const bytes = await tab.page.pdf({ printBackground: true });
    const saved =
      filename !== undefined
        ? await files.writeOutput(filename, bytes)
        : await files.writeOutput(`page-${new Date().toISOString().replace(/[:.]/g, '-')}.pdf`, bytes, { generated: true });
    response.addResult(`Saved the page as PDF to ${saved}`);
  },
});

export default [pdfSave];
