import type { z } from 'zod';
import type { Response } from './response.js';
import type { ToolSession } from './session.js';
import type { Tab } from '../tab/tab.js';

/** Optional tool groups, registered only when enabled (`--caps`). */
export type Capability = 'core' | 'context' | 'vision' | 'pdf' | 'gif' | 'devtools' | 'testing';

export interface ToolSchema<Input extends z.ZodType> {
  name: string;
  title: string;
  /** Written for the model: what the tool does and when to use it. */
  description: string;
  inputSchema: Input;
  /** `readOnly` maps to MCP `readOnlyHint`, `action` to `destructiveHint`. */
  type: 'readOnly' | 'action';
}

export interface Tool<Input extends z.ZodType = z.ZodType> {
  capability: Capability;
  schema: ToolSchema<Input>;
  /** True for the tools that clear a modal state; every other tab tool refuses while one is open. */
  clearsModal?: 'dialog' | 'fileChooser';
  /**
   * The paths on the host's disk this call reads (an upload): a host whose browser is elsewhere reads them first,
   * under its file policy, and sends the bytes along.
   */
  inputPaths?(args: z.output<Input>): string[];
  /** Saves a file on every call, named or not: its answer shows where, relative to the client's workspace. */
  savesFiles?: true;
  handle(session: ToolSession, args: z.output<Input>, response: Response): Promise<void>;
}

export function defineTool<Input extends z.ZodType>(tool: Tool<Input>): Tool<Input> {
  return tool;
}

/**
 * A tool that works on the current tab: the wrapper finds (or creates) the tab and refuses at once while a
 * dialog or file chooser is open, instead of hanging on a page that cannot answer.
 */
export function defineTabTool<Input extends z.ZodType>(tool: {
  capability: Capability;
  schema: ToolSchema<Input>;
  clearsModal?: 'dialog' | 'fileChooser';
  inputPaths?(args: z.output<Input>): string[];
  savesFiles?: true;
  handle(tab: Tab, args: z.output<Input>, response: Response, session: ToolSession): Promise<void>;
}): Tool<Input> {
  return {
    capability: tool.capability,
    schema: tool.schema,
    ...(tool.clearsModal ? { clearsModal: tool.clearsModal } : {}),
    ...(tool.inputPaths ? { inputPaths: tool.inputPaths } : {}),
    ...(tool.savesFiles ? { savesFiles: true as const } : {}),
    async handle(session, args, response) {
      const tab = await session.currentTab();
      const modals = tab.modalStates();
      if (tool.clearsModal) {
        if (!modals.some((m) => m.kind === tool.clearsModal)) {
          const what = tool.clearsModal === 'dialog' ? 'dialog' : 'file chooser';
          response.addError(`No ${what} is open. Use this tool only when the "Modal state" section shows one.`);
          return;
        }
      } else if (modals.length) {
        response.addError(
          `The page is blocked by a modal: handle it first with ${modals[0]!.kind === 'dialog' ? 'browser_handle_dialog' : 'browser_file_upload'}.`,
        );
        response.setModalState(modals.map((m) => m.description));
        return;
      }
      await tool.handle(tab, args, response, session);
    },
  };
}
