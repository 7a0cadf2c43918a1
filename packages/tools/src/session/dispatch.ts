import { describeIssues } from '@browsermcp/protocol';
import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { rescueTab } from './rescue.js';
import { rememberAnsweredTab, staleRefReason } from './stale-refs.js';
import { pageWentAway } from '../engine/browser-errors.js';
import { renderChanges } from '../tab/snapshot-changes.js';
import { errorResult, Response, type ToolResult } from './response.js';
import type { ToolSession } from './session.js';
import type { Tool } from './tool.js';
import { redactSecretForms, secretPatterns } from './secret-forms.js';
import { PAGE_TOOLS_META, pageToolInfos } from '../engine/webmcp.js';

export class UnknownToolError extends Error {
  override readonly name = 'UnknownToolError';
  constructor(readonly toolName: string) {
    super(`Unknown tool "${toolName}". List the tools with tools/list.`);
  }
}

/** Why a call ends before its handler does: its caller cancelled it, or its command ran past the timeout. */
export type StopReason = 'cancelled' | 'timeout';

export interface CallOptions {
  /** The catalog to look the tool up in (a host's capabilities); every tool by default (see callTool in call.ts). */
  tools?: readonly Tool[] | undefined;
  /** Aborted with a StopReason: the call answers at once, after freeing its tab (see rescueTab). */
  signal?: AbortSignal | undefined;
}

/**
 * Runs one call of one of `tools`: parses the arguments with the tool's schema, runs the handler, and turns every thrown error
 * into a tool result with `isError: true`. Throws only `UnknownToolError` (a protocol error for the caller).
 */
export async function runCall(session: ToolSession, name: string, args: unknown, tools: readonly Tool[], signal?: AbortSignal): Promise<ToolResult> {
  const tool = tools.find((t) => t.schema.name === name);
  if (!tool) throw new UnknownToolError(name);
  const response = new Response();
  const unknown = unknownArguments(tool.schema.inputSchema, args);
  // reportInput: a missing argument reads "is required" rather than "must be a string".
  const parsed = tool.schema.inputSchema.safeParse(args ?? {}, { reportInput: true });
  if (unknown || !parsed.success) {
    const problems = [unknown, parsed.success ? '' : describeIssues(parsed.error.issues)].filter(Boolean).join('; ');
    response.addError(`Invalid arguments for ${name}: ${problems}.`);
    return response.serialize();
  }
  const tabsBefore = session.tabs.length;
  session.signal = signal;
  if (signal?.aborted) return stoppedAnswer(session, name, stopReasonOf(signal));
  const stale = staleRefReason(session, parsed.data);
  if (stale) response.addError(stale);
  else {
    try {
      const stop = await doneOrStopped(tool.handle(session, parsed.data, response), signal);
      if (stop) return await stoppedAnswer(session, name, stop);
    } catch (err) {
      response.addError(errorText(err));
    }
  }
  await session.settled();
  const closedOutside = noteTabsClosedOutside(session, response);
  const notes = session.takeNotes();
  for (const note of notes) response.addNote(note);
  // A note can say that a tab closed after the tool listed the tabs (the person's, a memory bound's): the list as it
  // stands now.
  if ((closedOutside || notes.length) && response.hasTabs()) response.setTabs(await session.describeTabs());
  await recordFrame(session, name);
  // A popup the action opened (target=_blank, window.open) becomes current: say so.
  // The tab list when it changed, unless the change is the session's first tab (the answer's page says it all).
  if (session.tabs.length !== tabsBefore && !(tabsBefore === 0 && session.tabs.length === 1) && !response.hasTabs())
    response.setTabs(await session.describeTabs());
  await addPageState(session, response);
  // A refusal changes nothing the model can take refs from: its next refs are still refused until it looks.
  if (!stale) rememberAnsweredTab(session);
  return withPageTools(session, redactSecrets(withImages(response.serialize(), session.config.imageResponses), session.config.secrets));
}

/** The current page's WebMCP tools, on the first answer after they changed: the gateway offers them as tools of their own. */
function withPageTools(session: ToolSession, result: ToolResult): ToolResult {
  // Turned off (the person's setting) after tools were reported: the empty list takes them back.
  const tools = session.config.webmcp ? pageToolInfos(session.peekCurrentTab()?.webmcp) : [];
  const signature = JSON.stringify(tools);
  if (signature === session.pageToolsReported) return result;
  session.pageToolsReported = signature;
  return { ...result, _meta: { ...result._meta, [PAGE_TOOLS_META]: tools } };
}

/** A signal aborted without a StopReason (a caller's own AbortController) counts as cancelled. */
function stopReasonOf(signal: AbortSignal): StopReason {
  return signal.reason === 'timeout' ? 'timeout' : 'cancelled';
}

/** Undefined when `work` ends first (its error rethrown); the reason when `signal` aborts first. */
async function doneOrStopped(work: Promise<void>, signal: AbortSignal | undefined): Promise<StopReason | undefined> {
  if (!signal) return void (await work);
  // A stopped handler may still fail later (its page call cut off): nobody waits for it then.
  work.catch(() => undefined);
  let onAbort: () => void = () => undefined;
  const stopped = new Promise<StopReason>((resolve) => {
    onAbort = () => resolve(stopReasonOf(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work.then(() => undefined), stopped]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A stopped call frees its tab (a spinning script terminated, dialogs dismissed) and says what it did; after a
 * timeout the caller has already had its answer, so the next answer carries it too.
 */
async function stoppedAnswer(session: ToolSession, name: string, reason: StopReason): Promise<ToolResult> {
  const tab = session.peekCurrentTab();
  const { done } = tab ? await rescueTab(session, tab) : { done: [] };
  const why = reason === 'timeout' ? `${name} ran past the command timeout and was stopped` : `${name} was cancelled by its caller`;
  const text = done.length ? `${why}; to free the tab, browsermcp ${done.join(', ')}.` : `${why}.`;
  if (reason === 'timeout' || done.length) session.addNote(text);
  return errorResult(text);
}

// --secrets: a value the page shows (a filled field, an echo, its base64, hex, percent-encoding or its characters
// spaced apart) never reaches the model (secret-forms.ts).
function redactSecrets(result: ToolResult, secrets: Readonly<Record<string, string>> | undefined): ToolResult {
  const patterns = secrets ? secretPatterns(secrets) : [];
  if (!patterns.length) return result;
  return { ...result, content: result.content.map((c) => (c.type === 'text' ? { ...c, text: redactSecretForms(c.text, patterns) } : c)) };
}

// --image-responses: clients that cannot take images get none ("omit"); "only" sends an image answer without its text.
function withImages(result: ToolResult, mode: 'allow' | 'omit' | 'only'): ToolResult {
  if (mode === 'allow' || result.isError || !result.content.some((c) => c.type === 'image')) return result;
  return { ...result, content: result.content.filter((c) => (mode === 'omit' ? c.type !== 'image' : c.type === 'image')) };
}

// Unknown arguments are refused rather than dropped: a misspelt option silently ignored would mislead the model.
function unknownArguments(schema: z.ZodType, args: unknown): string {
  if (!(schema instanceof z.ZodObject) || typeof args !== 'object' || args === null || Array.isArray(args)) return '';
  const shape = schema.shape as Record<string, unknown>;
  const extra = Object.keys(args).filter((k) => !(k in shape));
  if (!extra.length) return '';
  const hint = extra.includes('ref') && 'target' in shape ? ' (pass the ref as "target")' : '';
  const known = Object.keys(shape);
  const takes = known.length ? `it takes ${known.map((k) => `"${k}"`).join(', ')}` : 'it takes no arguments';
  return `unknown argument${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}${hint} (${takes})`;
}

// A tab closed under the session (by the person, or by its page) is said once, in the next answer, with where the
// session is now: otherwise the model would take the tab it lands on for the one it was using.
/** Notes the tabs closed outside the session since its last answer; whether there were any. */
function noteTabsClosedOutside(session: ToolSession, response: Response): boolean {
  const closed = session.takeClosedOutside();
  if (!closed.length) return false;
  const current = session.peekCurrentTab();
  const now = current ? `now on tab ${session.tabs.indexOf(current)} (${current.page.url()})` : 'no tab is open now';
  for (const { index, url } of closed) {
    response.addNote(`Tab ${index} (${url}) was closed outside this session: the person closed it, or the page closed itself; ${now}.`);
  }
  return true;
}

// While a GIF is recorded, each action adds what the page shows after it.
async function recordFrame(session: ToolSession, name: string): Promise<void> {
  const tab = session.peekCurrentTab();
  if (!session.recorder || !tab || tab.modalStates().length || name.startsWith('browser_gif_')) return;
  await session.recorder.capture(tab, { background: session.host.background, mask: session.secretMasks }).catch(() => undefined);
}

function errorText(err: unknown): string {
  if (err instanceof ToolError) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  if (pageWentAway(err)) {
    return `The page changed or closed while the tool ran (${message.split('\n')[0]}). Take a new snapshot and try again.`;
  }
  return `Unexpected error: ${message.split('\n')[0]}`;
}

// Every answer about a tab ends with where it is now, what the console said and what blocks it.
async function addPageState(session: ToolSession, response: Response): Promise<void> {
  const tab = session.peekCurrentTab();
  if (!tab) return;
  const modals = tab.modalStates();
  if (modals.length) {
    response.setModalState(modals.map((m) => m.description));
    // The page cannot answer while a dialog is open: title and snapshot would hang.
    response.setPage({ url: tab.page.url(), title: '' });
    tab.pageShown = response.pageSection();
    return;
  }
  try {
    response.setPage({ url: tab.page.url(), title: await tab.title() });
    response.addConsoleLines(tab.logs.takeNewConsole(session.config.consoleLevel, session.config.consoleLinesInAnswer));
    const appended = response.wantsSnapshot() && session.config.includeSnapshot && !response.isError;
    if (appended) {
      const whole = await tab.snapshot({ maxChars: session.config.snapshotMaxChars, boxes: session.config.snapshotBoxes });
      const changes = session.config.snapshotChanges && response.changesWanted() ? tab.changesSinceShown(whole) : undefined;
      if (changes !== undefined) response.setSnapshotChanges(renderChanges(changes));
      else response.setSnapshot(whole);
      tab.shown(whole, changes === undefined);
    }
    if (tab.webmcp?.tools.length) response.setWebMcpTools([...new Set(tab.webmcp.tools.map((t) => t.name))]);
    // The page section goes with a snapshot the agent asked for; after an action only when it reads unlike the last
    // one shown of this tab (an action's answer on the same page gives what changed, or the page again, and nothing
    // about where it is).
    const page = response.pageSection();
    if (session.config.snapshotChanges && (appended || !response.showsWholePage()) && page === tab.pageShown) response.omitPage();
    tab.pageShown = page;
  } catch {
    // The page is navigating or gone; the result stands without its state.
  }
}
