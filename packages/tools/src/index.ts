export { callTool } from './call.js';
export { UnknownToolError } from './session/dispatch.js';
export type { CallOptions, StopReason } from './session/dispatch.js';
export { ToolCalls } from './session/calls.js';
export { runCommand, type CommandTabs } from './session/command.js';
export { leavePage, rescueTab } from './session/rescue.js';
export type { Rescue } from './session/rescue.js';
export { ToolError } from './engine/errors.js';
export { holdLeavePrompts } from './tab/leave-prompt.js';
export {
  allTools,
  defaultCapabilities,
  findTool,
  inputPathsOf,
  isOptionalCapability,
  optionalCapabilities,
  savesNamedFile,
  toolsFor,
  usesFiles,
} from './catalog.js';
export { outputNameProblem, toBase64, WireFileAccess } from './engine/files.js';
export type { WireFile } from './engine/files.js';
export { errorResult, Response } from './session/response.js';
export type { ContentPart, ImageContent, PageInfo, TextContent, ToolResult } from './session/response.js';
export { CONSOLE_LEVELS, defaultSessionConfig, ENGINE_TOOL_SETTING_KEYS, ToolSession } from './session/session.js';
export type { ConsoleLevel } from './session/session.js';
export type { ContextInfo, ContextManager, EngineToolSettings, FileAccess, UploadFile, ProxySettings, SessionConfig, SessionHost } from './session/session.js';
export { parseRef, refPrefix } from './engine/refs.js';
export type { Ref } from './engine/refs.js';
export { Tab } from './tab/tab.js';
export type { ModalState } from './tab/tab.js';
export { TabLogs } from './tab/tab-logs.js';
export type { ConsoleEntry, NetworkEntry } from './tab/tab-logs.js';
export { defineTabTool, defineTool } from './session/tool.js';
export type { Capability, Tool, ToolSchema } from './session/tool.js';
export { sessionConfigFrom, settingsWithin, SettingsConflictError } from './session/settings.js';
export { originPolicy, parseOriginPattern } from './engine/origins.js';
export { fileUrlRefusal, SYSTEM_DIRS } from './engine/protected-paths.js';
export { canonicalHost } from './engine/hosts.js';
export type { UrlCheck } from './engine/origins.js';
export type { ToolSettings } from './session/settings.js';
export { CODEGEN_LANGUAGES, renderLocator, renderStep } from './engine/codegen.js';
export type { CodeArg, CodeStep, CodegenLanguage, LocatorChain, LocatorSpec } from './engine/codegen.js';
export { cutText, MAX_ANSWER_CHARS, MAX_CONSOLE_ENTRY_CHARS, MAX_CONSOLE_RING_CHARS } from './engine/sizes.js';
export { BROWSER_HANDLE_PATTERN, BROWSER_STATE_TOOL_NAMES, browserArgumentSchema, browserStateTools } from './session/browser-states.js';
export { PAGE_TOOLS_META, UNTRUSTED_NOTE, type PageToolInfo } from './engine/webmcp.js';
export type { BrowserStateToolName } from './session/browser-states.js';
