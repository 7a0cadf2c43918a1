import { z } from 'zod';
import { ToolError } from '../errors.js';
import { formatConsole } from '../tab.js';
import { defineTabTool } from '../tool.js';

const LEVELS = ['error', 'warning', 'info', 'debug'] as const;
// Console message types from CDP mapped to the four levels the tool filters by.
const RANK: Record<string, number> = { error: 0, assert: 0, warn: 1, warning: 1, info: 2, log: 2, dir: 2, table: 2, trace: 2, debug: 3, verbose: 3 };

const consoleMessages = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_console_messages',
    title: 'Console messages',
    description: 'Console messages and page errors of the current tab, oldest first.',
    inputSchema: z.object({
      level: z.enum(LEVELS).optional().describe('Only messages at this level or more severe (error < warning < info < debug); info by default'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { level = 'info' }, response) {
    const max = LEVELS.indexOf(level);
    const lines = tab.console
      .filter((e) => (RANK[e.level] ?? 2) <= max)
      .map(formatConsole);
    tab.takeNewConsole();
    response.addResult(lines.length ? lines.join('\n') : `No console messages at level ${level} or above.`);
  },
});

const networkRequests = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_network_requests',
    title: 'Network requests',
    description: 'Requests the current tab made since it opened: method, URL, status and type.',
    inputSchema: z.object({
      filter: z.string().min(1).optional().describe('Only URLs containing this text, or matching /regex/'),
    }),
    type: 'readOnly',
  },
  async handle(tab, { filter }, response) {
    let test: (url: string) => boolean = () => true;
    if (filter) {
      const m = /^\/(.+)\/([a-z]*)$/.exec(filter);
      if (m) {
        let re: RegExp;
        try {
          re = new RegExp(m[1]!, m[2]);
        } catch (err) {
          throw new ToolError(`filter ${filter} is not a valid regular expression: ${(err as Error).message}`);
        }
        test = (url) => re.test(url);
      } else {
        test = (url) => url.includes(filter);
      }
    }
    const lines = tab.network
      .filter((r) => test(r.url))
      .map((r) => `[${r.method}] ${r.url} => ${r.failure ? `[FAILED] ${r.failure}` : r.status !== undefined ? `[${r.status}]` : '[pending]'} (${r.resourceType})`);
    response.addResult(lines.length ? lines.join('\n') : 'No matching requests.');
  },
});

export default [consoleMessages, networkRequests];
