import { z } from 'zod';
import { defineTabTool } from '../tool.js';
import { elementSchema } from './common.js';

const coord = (what: string) => z.number().finite().min(0, `${what} must not be negative`).describe(`${what} in CSS pixels from the viewport's top-left`);

const clickXY = defineTabTool({
  capability: 'vision',
  schema: {
    name: 'browser_mouse_click_xy',
    title: 'Click at coordinates',
    description: 'Click at a point of the viewport (use with screenshots when the snapshot cannot name the element).',
    inputSchema: z.object({ element: elementSchema, x: coord('x'), y: coord('y') }),
    type: 'action',
  },
  async handle(tab, { x, y }, response) {
    await tab.runAction(() => tab.page.mouse.click(x, y));
    response.addResult(`Clicked at (${x}, ${y})`);
    response.setIncludeSnapshot();
  },
});

const moveXY = defineTabTool({
  capability: 'vision',
  schema: {
    name: 'browser_mouse_move_xy',
    title: 'Move mouse to coordinates',
    description: 'Move the mouse to a point of the viewport.',
    inputSchema: z.object({ element: elementSchema, x: coord('x'), y: coord('y') }),
    type: 'readOnly',
  },
  async handle(tab, { x, y }, response) {
    await tab.runAction(() => tab.page.mouse.move(x, y));
    response.addResult(`Moved the mouse to (${x}, ${y})`);
  },
});

const dragXY = defineTabTool({
  capability: 'vision',
  schema: {
    name: 'browser_mouse_drag_xy',
    title: 'Drag between coordinates',
    description: 'Press the mouse at one point, move to another and release.',
    inputSchema: z.object({
      element: elementSchema,
      startX: coord('startX'),
      startY: coord('startY'),
      endX: coord('endX'),
      endY: coord('endY'),
    }),
    type: 'action',
  },
  async handle(tab, { startX, startY, endX, endY }, response) {
    const { mouse } = tab.page;
    await tab.runAction(async () => {
      await mouse.move(startX, startY);
      await mouse.down();
      await mouse.move(endX, endY, { steps: 8 });
      await mouse.up();
    });
    response.addResult(`Dragged from (${startX}, ${startY}) to (${endX}, ${endY})`);
    response.setIncludeSnapshot();
  },
});

const wheel = defineTabTool({
  capability: 'vision',
  schema: {
    name: 'browser_mouse_wheel',
    title: 'Scroll with the mouse wheel',
    description: 'Scroll by turning the mouse wheel at the current mouse position.',
    inputSchema: z.object({
      deltaX: z.number().finite().optional().describe('Horizontal scroll in pixels'),
      deltaY: z.number().finite().describe('Vertical scroll in pixels (positive scrolls down)'),
    }),
    type: 'action',
  },
  async handle(tab, { deltaX = 0, deltaY }, response) {
    await tab.runAction(() => tab.page.mouse.wheel({ deltaX, deltaY }));
    response.addResult(`Scrolled by (${deltaX}, ${deltaY})`);
  },
});

export default [clickXY, moveXY, dragXY, wheel];
