import { z } from 'zod';
import { defineTabTool } from '../session/tool.js';
import { elementSchema } from './common.js';

const buttonSchema = z.enum(['left', 'right', 'middle']).optional();

const coord = (what: string) => z.number().finite().min(0, `${what} must not be negative`).describe(`${what} in CSS pixels from the viewport's top-left`);

const clickXY = defineTabTool({
  capability: 'vision',
  schema: {
    name: 'browser_mouse_click_xy',
    title: 'Click at coordinates',
    description: 'Click at a point of the viewport (use with screenshots when the snapshot cannot name the element).',
    inputSchema: z.object({
      element: elementSchema,
      x: coord('x'),
      y: coord('y'),
      button: buttonSchema.describe('Button to click, left by default'),
      clickCount: z.number().int().min(1).max(3).optional().describe('Number of clicks (2 for a double click), 1 by default'),
      delay: z.number().min(0).max(10_000).optional().describe('Milliseconds between pressing and releasing the button, 0 by default'),
    }),
    type: 'action',
  },
  async handle(tab, { x, y, button = 'left', clickCount = 1, delay = 0 }, response) {
    await tab.runAction(() => tab.page.mouse.click(x, y, { button, count: clickCount, delay }));
    const how = `${clickCount === 2 ? 'Double-clicked' : clickCount === 3 ? 'Triple-clicked' : 'Clicked'}${button === 'left' ? '' : ` the ${button} button`}`;
    response.addResult(`${how} at (${x}, ${y})`);
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
    await tab.runAction(() => tab.page.mouse.move(x, y), { pointerMoves: true });
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
    await tab.runAction(
      async () => {
        await mouse.move(startX, startY);
        await mouse.down();
        await mouse.move(endX, endY, { steps: 8 });
        await mouse.up();
      },
      { pointerMoves: true },
    );
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
      deltaX: z.number().finite().optional().describe('Horizontal scroll in pixels, 0 by default'),
      deltaY: z.number().finite().optional().describe('Vertical scroll in pixels (positive scrolls down), 0 by default'),
    }),
    type: 'action',
  },
  async handle(tab, { deltaX = 0, deltaY = 0 }, response) {
    await tab.runAction(() => tab.page.mouse.wheel({ deltaX, deltaY }));
    response.addResult(`Scrolled by (${deltaX}, ${deltaY})`);
  },
});

const mouseButton = (direction: 'down' | 'up') =>
  defineTabTool({
    capability: 'vision',
    schema: {
      name: `browser_mouse_${direction}`,
      title: direction === 'down' ? 'Press the mouse button' : 'Release the mouse button',
      description: `${direction === 'down' ? 'Press' : 'Release'} a mouse button at the current mouse position (move it there with browser_mouse_move_xy).`,
      inputSchema: z.object({ button: buttonSchema.describe(`Button to ${direction === 'down' ? 'press' : 'release'}, left by default`) }),
      type: 'action',
    },
    async handle(tab, { button = 'left' }, response) {
      await tab.runAction(() => (direction === 'down' ? tab.page.mouse.down({ button }) : tab.page.mouse.up({ button })));
      response.addResult(`${direction === 'down' ? 'Pressed' : 'Released'} the ${button} mouse button`);
      if (direction === 'up') response.setIncludeSnapshot();
    },
  });

export default [clickXY, moveXY, dragXY, wheel, mouseButton('down'), mouseButton('up')];
