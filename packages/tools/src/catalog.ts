// The tool catalogue: the layer above every tool it lists (session/ runs a tool it is handed, never looks one up here).
import type { Capability, Tool } from './session/tool.js';
import context from './tools/context.js';
import devtools from './tools/devtools.js';
import drop from './tools/drop.js';
import emulate from './tools/emulate.js';
import evaluate from './tools/evaluate.js';
import gif from './tools/gif.js';
import input from './tools/input.js';
import logs from './tools/logs.js';
import modals from './tools/modals.js';
import navigate from './tools/navigate.js';
import pdf from './tools/pdf.js';
import person from './tools/person.js';
import screenshot from './tools/screenshot.js';
import snapshot from './tools/snapshot.js';
import tabs from './tools/tabs.js';
import testing from './tools/testing.js';
import vision from './tools/vision.js';
import wait from './tools/wait.js';
import webmcp from './tools/webmcp.js';

/** Every tool, in the order clients list them. */
export const allTools: readonly Tool[] = [
  ...navigate,
  ...snapshot,
  ...input,
  ...modals,
  ...drop,
  ...evaluate,
  ...webmcp,
  ...wait,
  ...tabs,
  ...screenshot,
  ...logs,
  ...emulate,
  ...person,
  ...context,
  ...vision,
  ...pdf,
  ...gif,
  ...devtools,
  ...testing,
] as Tool[];

/** Capabilities that are always on; the others are opt-in (`--caps vision,pdf`). */
export const defaultCapabilities: readonly Capability[] = ['core', 'context'];
export const optionalCapabilities: readonly Capability[] = ['vision', 'pdf', 'gif', 'devtools', 'testing'];

/** The tools for a set of opt-in capabilities (core and context tools are always included). */
export function toolsFor(caps: readonly Capability[] = []): Tool[] {
  const on = new Set<Capability>([...defaultCapabilities, ...caps]);
  return allTools.filter((t) => on.has(t.capability));
}

/** Whether a name from the wire (a session's settings) is an opt-in capability. */
export function isOptionalCapability(name: string): name is Capability {
  return (optionalCapabilities as readonly string[]).includes(name);
}

export function findTool(name: string): Tool | undefined {
  return allTools.find((t) => t.schema.name === name);
}

/**
 * Whether a call saves a file under a name the model gave (its `filename`): where that lands depends on the client's
 * workspace, which a host whose browser is elsewhere works out before the call.
 */
export function savesNamedFile(name: string, args: unknown): boolean {
  const tool = findTool(name);
  if (!tool) return false;
  const parsed = tool.schema.inputSchema.safeParse(args);
  return parsed.success && typeof (parsed.data as { filename?: unknown }).filename === 'string';
}

/**
 * Whether a call reads files from the host's disk or saves one under a name the model gave: the calls whose client's
 * folders (its MCP roots, its workspace) a gateway asks for and hands to the daemon with the call.
 */
export function usesFiles(name: string, args: unknown): boolean {
  return findTool(name)?.savesFiles === true || inputPathsOf(name, args).length > 0 || savesNamedFile(name, args);
}

/** The file paths a call reads from the host's disk (an upload's `paths`), as its tool declares them. */
export function inputPathsOf(name: string, args: unknown): string[] {
  const tool = findTool(name);
  if (!tool?.inputPaths) return [];
  const parsed = tool.schema.inputSchema.safeParse(args);
  return parsed.success ? tool.inputPaths(parsed.data) : [];
}
