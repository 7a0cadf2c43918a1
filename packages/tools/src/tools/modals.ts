import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { HeldLeave } from '../tab/leave-prompt.js';
import type { UploadFile } from '../session/session.js';
import { defineTabTool } from '../session/tool.js';

const handleDialog = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_handle_dialog',
    title: 'Handle a dialog',
    description: 'Accept or dismiss the alert, confirm or prompt dialog shown in the "Modal state" section.',
    inputSchema: z.object({
      accept: z.boolean().describe('Accept (OK) or dismiss (Cancel) the dialog'),
      promptText: z.string().optional().describe('Text to enter in a prompt dialog before accepting'),
    }),
    type: 'action',
  },
  clearsModal: 'dialog',
  async handle(tab, { accept, promptText }, response) {
    const state = tab.takeModal('dialog')!;
    // Leave on "Leave site?": the answer is the page the navigation leads to, once it is there.
    const leaving = accept && state.dialog.type() === 'beforeunload';
    const expectNavigation = leaving ? (state.dialog instanceof HeldLeave ? state.dialog.request : true) : undefined;
    await tab.runAction(() => (accept ? state.dialog.accept(promptText) : state.dialog.dismiss()), { expectNavigation });
    response.addResult(`${accept ? 'Accepted' : 'Dismissed'} the ${state.dialog.type()} dialog`);
    response.setIncludeSnapshot();
  },
});

const fileUpload = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_file_upload',
    title: 'Upload files',
    description: 'Choose files in the open file chooser shown in the "Modal state" section. Omit paths to cancel the chooser.',
    inputSchema: z.object({
      paths: z
        .array(z.string().min(1, 'a path must not be empty'))
        .optional()
        .describe("Paths of the files to upload, absolute or relative to the client's first root; omit or pass [] to cancel"),
    }),
    type: 'action',
  },
  clearsModal: 'fileChooser',
  inputPaths: ({ paths }) => paths ?? [],
  async handle(tab, { paths }, response, session) {
    const state = tab.takeModal('fileChooser')!;
    if (!paths || paths.length === 0) {
      await state.chooser.cancel();
      tab.armFileChooser();
      response.addResult('Cancelled the file chooser');
      return;
    }
    const files = session.host.files;
    if (!files) {
      await state.chooser.cancel();
      tab.armFileChooser();
      throw new ToolError('File upload is not available here: this browser host gives the tools no file access. The chooser was cancelled.');
    }
    if (!state.chooser.isMultiple() && paths.length > 1) {
      tabRestore();
      throw new ToolError(`This file chooser takes one file; ${paths.length} were given.`);
    }
    let resolved: UploadFile[];
    try {
      resolved = await Promise.all(paths.map((p) => files.resolveUpload(p)));
    } catch (err) {
      tabRestore();
      throw err;
    }
    await tab.runAction(() => tab.acceptChooser(state, resolved));
    tab.armFileChooser();
    response.addResult(`Uploaded ${paths.join(', ')}`);
    response.setIncludeSnapshot();

    // The chooser stays open after a refused call so the model can try again with the right paths.
    function tabRestore(): void {
      tab.restoreModal(state);
    }
  },
});

export default [handleDialog, fileUpload];
