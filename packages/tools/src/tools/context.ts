import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import type { ContextManager } from '../session/session.js';
import type { ToolSession } from '../session/session.js';
import { defineTool } from '../session/tool.js';

const contextName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,32}$/, 'name must be 1-32 letters, digits, "_" or "-"')
  .describe('Context name, e.g. "uk" or "logged-out"');

function contexts(session: ToolSession): ContextManager {
  const manager = session.host.contexts;
  if (!manager) {
    throw new ToolError(
      'Named browser contexts need a browser that browsermcp launched or reached over CDP; they are not available in this browser (the extension drives your own profile).',
    );
  }
  return manager;
}

const create = defineTool({
  capability: 'context',
  schema: {
    name: 'browser_context_create',
    title: 'Create a browser context',
    description: 'Create an isolated browser context (its own cookies, storage and cache; optionally its own proxy or saved login state) and make it active.',
    inputSchema: z.object({
      name: contextName,
      proxy: z
        .object({
          server: z.string().min(1).describe('Proxy server, e.g. "http://127.0.0.1:8080" or "socks5://host:1080"'),
          bypass: z.string().optional().describe('Comma-separated hosts that skip the proxy'),
          username: z.string().optional(),
          password: z.string().optional(),
        })
        .optional()
        .describe("Send this context's traffic through a proxy"),
      storageState: z.string().min(1).optional().describe('Path to a Playwright storage state file ({cookies, origins}) to start from'),
    }),
    type: 'action',
  },
  async handle(session, { name, proxy, storageState }, response) {
    await contexts(session).create({ name, proxy, storageState });
    response.addResult(`Created context "${name}" and made it active${proxy ? ` (proxy ${proxy.server})` : ''}`);
  },
});

const switchTo = defineTool({
  capability: 'context',
  schema: {
    name: 'browser_context_switch',
    title: 'Switch browser context',
    description: 'Make another named context active: the following tool calls run in its tabs.',
    inputSchema: z.object({ name: contextName }),
    type: 'action',
  },
  async handle(session, { name }, response) {
    await contexts(session).switch(name);
    response.addResult(`Switched to context "${name}"`);
  },
});

const list = defineTool({
  capability: 'context',
  schema: {
    name: 'browser_context_list',
    title: 'List browser contexts',
    description: 'List the named contexts with their page count, current URL, proxy and which one is active.',
    inputSchema: z.object({}),
    type: 'readOnly',
  },
  async handle(session, _args, response) {
    const items = await contexts(session).list();
    response.addResult(
      items
        .map(
          (c) =>
            `- ${c.name}${c.active ? ' (active)' : ''}: ${c.pages} page${c.pages === 1 ? '' : 's'}${c.url ? `, ${c.url}` : ''}${c.proxy ? `, proxy ${c.proxy}` : ''}`,
        )
        .join('\n'),
    );
  },
});

const close = defineTool({
  capability: 'context',
  schema: {
    name: 'browser_context_close',
    title: 'Close a browser context',
    description: 'Close a named context and its pages. If it was active, "default" becomes active.',
    inputSchema: z.object({ name: contextName }),
    type: 'action',
  },
  async handle(session, { name }, response) {
    await contexts(session).close(name);
    response.addResult(`Closed context "${name}"`);
  },
});

export default [create, switchTo, list, close];
