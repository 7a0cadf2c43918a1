import { z } from 'zod';
import type { ToolSchema } from './tool.js';

/**
 * Browser states as explicit handles (MCP 2026-07-28, SEP-2567): a state is a browser context with its tabs, cookies
 * and storage that outlives each request. The host that holds sessions (the gateway) runs these tools itself; every
 * other tool takes the optional `browser` argument to run in a state it names.
 */

/** How a handle looks: a prefix and 192 random bits, base64url. */
export const BROWSER_HANDLE_PATTERN = /^bs_[A-Za-z0-9_-]{32}$/;

/** The optional `browser` argument every tool takes, described for the model (`idle`: how long an unused state lives, in words). */
export function browserArgumentSchema(idle: string): z.ZodOptional<z.ZodString> {
  return z
    .string()
    .regex(BROWSER_HANDLE_PATTERN, 'a browser state handle from browser_state_open (bs_ and 32 characters)')
    .optional()
    .describe(
      `A browser state handle from browser_state_open: the call runs in that state (its tabs, cookies and storage). Without it, the call runs in your default state. A state unused for ${idle} closes.`,
    );
}

export const browserStateTools = {
  open: (idle: string): ToolSchema<z.ZodObject> => ({
    name: 'browser_state_open',
    title: 'Open a browser state',
    description: `Open a new, empty browser state (its own tabs, cookies and storage) and return its handle. Pass the handle as the \`browser\` argument of any tool to work in that state, apart from your other states. A state unused for ${idle} closes; close it sooner with browser_state_close.`,
    inputSchema: z.object({}),
    type: 'action',
  }),
  list: (): ToolSchema<z.ZodObject> => ({
    name: 'browser_state_list',
    title: 'List browser states',
    description: 'List the browser states you opened with browser_state_open that are still open, with how long each has left when unused.',
    inputSchema: z.object({}),
    type: 'readOnly',
  }),
  close: (): ToolSchema<z.ZodObject> => ({
    name: 'browser_state_close',
    title: 'Close a browser state',
    description: 'Close a browser state opened with browser_state_open, now: its tabs close and its cookies and storage are gone.',
    inputSchema: z.object({
      browser: z.string().regex(BROWSER_HANDLE_PATTERN, 'a browser state handle from browser_state_open').describe('The handle browser_state_open returned.'),
    }),
    type: 'action',
  }),
};

/** The names of the state tools, which the host answers itself. */
export const BROWSER_STATE_TOOL_NAMES = ['browser_state_open', 'browser_state_list', 'browser_state_close'] as const;
export type BrowserStateToolName = (typeof BROWSER_STATE_TOOL_NAMES)[number];
