import {
  ErrorCodes,
  errorResponseFor,
  responseFor,
  type CommandEnvelope,
  type ErrorResponseEnvelope,
  type SuccessResponseEnvelope,
} from '@browsermcp/protocol';
import type { Page } from 'puppeteer-core';
import type { ToolCalls } from './calls.js';
import { UnknownToolError } from './dispatch.js';
import { errorResult } from './response.js';
import type { ToolSession } from './session.js';
import type { Tool } from './tool.js';

/** What a host tells the shared command step about its tabs. */
export interface CommandTabs {
  /** The router's id for a page's tab here, if it has one (a lookup: nothing is named by it). */
  idOf(page: Page): string | undefined;
  /** The id the answer names for the session's current tab; a host that names tabs itself gives one here. Default idOf. */
  answerIdOf?(page: Page): string | undefined;
  /**
   * Why a tab id the router named cannot be used here, for the answer; undefined to go on in the session's current
   * tab (a launched browser after browser_context_switch: the router still names the previous context's tab).
   */
  unknown(tabId: string): string | undefined;
}

/**
 * One command in any host (a launched browser's executor, the person's extension): the tab the router named is
 * selected, the tool call runs (stoppable by its wireId through `calls`), and the answer is the response envelope,
 * naming the session's current tab. A tool the host's catalog lacks is a MethodNotFound error; every other failure is
 * an `isError` result.
 */
export async function runCommand(
  calls: ToolCalls,
  session: ToolSession,
  command: CommandEnvelope,
  tools: readonly Tool[],
  tabs: CommandTabs,
): Promise<SuccessResponseEnvelope | ErrorResponseEnvelope> {
  if (command.tabId !== undefined) {
    const index = session.tabs.findIndex((t) => tabs.idOf(t.page) === command.tabId);
    if (index >= 0) session.selectTab(index);
    else {
      const why = tabs.unknown(command.tabId);
      if (why !== undefined) return responseFor(command, errorResult(why));
    }
  }
  let result: Awaited<ReturnType<typeof calls.run>>;
  try {
    result = await calls.run(command.wireId, session, command.name, command.payload, tools);
  } catch (err) {
    if (err instanceof UnknownToolError) return errorResponseFor(command, { code: ErrorCodes.MethodNotFound, message: err.message });
    throw err;
  }
  const current = session.peekCurrentTab();
  const tabId = current === undefined ? undefined : tabs.answerIdOf ? tabs.answerIdOf(current.page) : tabs.idOf(current.page);
  const response = responseFor(command, result);
  return tabId !== undefined ? { ...response, tabId } : response;
}
