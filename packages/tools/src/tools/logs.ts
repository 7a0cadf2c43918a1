import { cutText, MAX_ANSWER_CHARS } from '../engine/sizes.js';
import { newestLines } from '../engine/lists.js';
import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { CONSOLE_LEVELS as LEVELS } from '../session/session.js';
import { consoleRank, formatConsole, type NetworkEntry } from '../tab/tab-logs.js';
import { defineTabTool } from '../session/tool.js';
import { answerOrSave, filenameSchema } from './common.js';

const consoleMessages = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_console_messages',
    title: 'Console messages',
    description: 'Console messages and page errors of the current tab since it loaded its page (all: since it opened), oldest first.',
    inputSchema: z.object({
      level: z
        .enum(LEVELS)
        .optional()
        .describe("Only messages at this level or more severe (error < warning < info < debug); the gateway's --console-level (info) by default"),
      all: z.boolean().optional().describe('Every message since the tab opened, not only since the last navigation'),
      filename: filenameSchema('the messages'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { level: given, all = false, filename }, response, session) {
    const level = given ?? session.config.consoleLevel;
    const max = LEVELS.indexOf(level);
    const entries = tab.logs.console.filter((e) => all || e.document === tab.logs.currentDocument);
    const shown = entries.filter((e) => consoleRank(e.level) <= max);
    tab.logs.takeNewConsole();
    const errors = entries.filter((e) => consoleRank(e.level) === 0).length;
    const warnings = entries.filter((e) => consoleRank(e.level) === 1).length;
    const header = [`Total messages: ${entries.length} (Errors: ${errors}, Warnings: ${warnings})`];
    if (shown.length !== entries.length) header.push(`Returning ${shown.length} messages for level "${level}"`);
    const lines = filename === undefined ? newest(shown.map(formatConsole), 'messages') : shown.map(formatConsole);
    const body = lines.length ? lines.join('\n') : `No console messages at level ${level} or above.`;
    await answerOrSave(session, response, `${header.join('\n')}\n\n${body}`, filename, 'the console messages');
  },
});

// Kept out of the list unless asked for: what a page loads to show itself, when it loaded fine.
const isStaticSuccess = (r: NetworkEntry) =>
  r.resourceType !== 'fetch' && r.resourceType !== 'xhr' && r.failure === undefined && r.status !== undefined && r.status < 400;

/** Most entries a list answers with; a file (`filename`) takes them all. */
export const MAX_LISTED = 200;

/** The newest MAX_LISTED lines, after one that counts the rest and says how to get them. */
function newest(lines: string[], what: string): string[] {
  return newestLines(lines, MAX_LISTED, (n) => `… ${n} earlier ${what} not shown; pass "filename" to save them all`);
}

function urlFilter(filter: string | undefined): (url: string) => boolean {
  if (!filter) return () => true;
  // "/re/flags" or a bare regular expression, as @playwright/mcp takes it ("/api/.*user").
  const slashed = /^\/(.+)\/([dgimsuy]*)$/.exec(filter);
  let re: RegExp;
  try {
    re = slashed ? new RegExp(slashed[1]!, slashed[2]!.replace('g', '')) : new RegExp(filter);
  } catch (err) {
    throw new ToolError(`filter ${filter} is not a valid regular expression: ${(err as Error).message}`);
  }
  return (url) => re.test(url);
}

/** One request on a line: method, URL, outcome and type. */
function describeRequest(r: NetworkEntry): string {
  const outcome = r.failure ? `[FAILED] ${r.failure}` : r.status !== undefined ? `[${r.status}]` : '[pending]';
  return `[${r.method}] ${r.url} => ${outcome} (${r.resourceType})`;
}

const networkRequests = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_network_requests',
    title: 'Network requests',
    description:
      'A numbered list of the requests the current page made since it loaded: method, URL, status and type. Use ' +
      'browser_network_request with the number for headers and bodies.',
    inputSchema: z.object({
      static: z.boolean().optional().describe('Also list static resources (images, fonts, scripts, the document) that loaded fine; false by default'),
      filter: z.string().min(1).optional().describe('Only URLs matching this regular expression (e.g. "/api/.*user")'),
      filename: filenameSchema('the list'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { static: withStatic = false, filter, filename }, response, session) {
    const test = urlFilter(filter);
    const current = tab.logs.network.filter((r) => r.document === tab.logs.currentDocument);
    const hidden = withStatic ? 0 : current.filter(isStaticSuccess).length;
    const listed = current.filter((r) => (withStatic || !isStaticSuccess(r)) && test(r.url)).map((r) => `${r.id}. ${describeRequest(r)}`);
    const lines = filename === undefined ? newest(listed, 'requests') : listed;
    if (!lines.length) lines.push('No matching requests.');
    if (hidden) lines.push(`\nNote: ${hidden} static request${hidden === 1 ? '' : 's'} not shown; pass "static": true to see ${hidden === 1 ? 'it' : 'them'}.`);
    await answerOrSave(session, response, lines.join('\n'), filename, 'the list');
  },
});

const PARTS = ['request-headers', 'request-body', 'response-headers', 'response-body'] as const;
type Part = (typeof PARTS)[number];

const networkRequest = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_network_request',
    title: 'Network request details',
    description: 'Headers and bodies of one request, by its number from browser_network_requests; part to get only one of them.',
    inputSchema: z.object({
      index: z.number().int().min(1).describe('The request number, as browser_network_requests prints it'),
      part: z.enum(PARTS).optional().describe('Only this part: request-headers, request-body, response-headers or response-body'),
      filename: filenameSchema('the details'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { index, part, filename }, response, session) {
    const entry = tab.logs.network.find((r) => r.id === index);
    if (!entry) throw new ToolError(`Request #${index} not found (only the last 1,000 of this tab are kept). Use browser_network_requests to see the numbers.`);
    const parts = part ? [part] : PARTS;
    const sections: string[] = [];
    if (!part) sections.push(`#${entry.id} ${describeRequest(entry)}`);
    for (const p of parts) {
      const text = await partOf(entry, p);
      sections.push(part ? text : `${p}:\n${text}`);
    }
    await answerOrSave(session, response, sections.join('\n\n'), filename, 'the details');
  },
});

async function partOf(entry: NetworkEntry, part: Part): Promise<string> {
  const req = entry.request;
  const res = req.response();
  const headers = (h: Record<string, string>) =>
    Object.entries(h)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n') || '(none)';
  switch (part) {
    case 'request-headers':
      return headers(req.headers());
    case 'request-body': {
      const body = req.hasPostData() ? (req.postData() ?? (await req.fetchPostData().catch(() => undefined))) : undefined;
      return body ?? '(no body)';
    }
    case 'response-headers':
      return res ? headers(res.headers()) : '(no response yet)';
    case 'response-body': {
      if (!res) return '(no response yet)';
      try {
        const bytes = await res.content();
        const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        return cutText(text, MAX_ANSWER_CHARS, 'pass "filename" for all of it') || '(empty)';
      } catch (err) {
        if (err instanceof TypeError) return '(binary body)';
        return `(the body is no longer available: ${(err as Error).message.split('\n')[0]})`;
      }
    }
  }
}

export default [consoleMessages, networkRequests, networkRequest];
