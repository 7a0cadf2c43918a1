import { z } from 'zod';
import { ToolError } from '../engine/errors.js';
import { defineTabTool, defineTool } from '../session/tool.js';
import { normalizeUrl } from './common.js';

const tabs = defineTool({
  capability: 'core',
  schema: {
    name: 'browser_tabs',
    title: 'Manage tabs',
    description: "List, open, close or select this session's tabs. Tabs are numbered from 0 in the list.",
    inputSchema: z.object({
      action: z.enum(['list', 'new', 'close', 'select']).describe('What to do'),
      index: z.number().int().min(0).optional().describe('Tab index for close or select; close without index closes the current tab'),
      url: z.string().min(1).optional().describe('URL to open in the new tab (for action "new")'),
    }),
    type: 'action',
  },
  async handle(session, { action, index, url }, response) {
    switch (action) {
      case 'list':
        break;
      case 'new': {
        const href = url !== undefined ? normalizeUrl(url, session.config) : undefined;
        const tab = await session.newTab();
        if (href) await tab.page.goto(href, { waitUntil: 'domcontentloaded' });
        response.setIncludeSnapshot().askPage();
        break;
      }
      case 'select':
        if (index === undefined) throw new ToolError('action "select" needs index: the number of the tab in the list.');
        session.selectTab(index);
        // The agent turns to another tab: the whole of it, not what changed since it last looked there.
        response.setIncludeSnapshot(true, true).askPage();
        break;
      case 'close':
        await session.closeTab(index);
        break;
    }
    response.setTabs(await session.describeTabs());
  },
});

const close = defineTool({
  capability: 'core',
  schema: {
    name: 'browser_close',
    title: 'Close the browser',
    description: "Close all of this session's tabs. The next tool call opens a fresh tab.",
    inputSchema: z.object({}),
    type: 'action',
  },
  async handle(session, _args, response) {
    const count = session.tabs.length;
    await session.closeAll();
    response.addResult(`Closed ${count} tab${count === 1 ? '' : 's'}`);
  },
});

const resize = defineTabTool({
  capability: 'core',
  schema: {
    name: 'browser_resize',
    title: 'Resize the viewport',
    description: 'Resize the page viewport (in CSS pixels).',
    inputSchema: z.object({
      width: z.number().int().min(1, 'width must be at least 1').max(10_000).describe('Width in CSS pixels'),
      height: z.number().int().min(1, 'height must be at least 1').max(10_000).describe('Height in CSS pixels'),
    }),
    type: 'action',
  },
  async handle(tab, { width, height }, response) {
    await tab.page.setViewport({ width, height });
    response.addResult(`Resized the viewport to ${width}×${height}`);
  },
});

export default [tabs, close, resize];
