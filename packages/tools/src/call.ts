import { allTools } from './catalog.js';
import type { ToolResult } from './session/response.js';
import type { ToolSession } from './session/session.js';
import { runCall, type CallOptions } from './session/dispatch.js';

/**
 * Runs one tool call, looked up in `options.tools` (a host's capabilities) or among every tool: parses the arguments
 * with the tool's schema, runs the handler, and turns every thrown error into a tool result with `isError: true`.
 * Throws only `UnknownToolError` (a protocol error for the caller).
 */
export function callTool(session: ToolSession, name: string, args: unknown, options: CallOptions = {}): Promise<ToolResult> {
  return runCall(session, name, args, options.tools ?? allTools, options.signal);
}
