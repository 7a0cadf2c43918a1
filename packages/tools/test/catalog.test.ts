import { describe, expect, it } from 'vitest';
import { allTools, callTool, toolsFor, ToolSession, UnknownToolError, usesFiles } from '../src/index.js';
import { textOf } from './harness.js';

// No browser here: argument checks happen before a tool touches a page.
const session = new ToolSession({
  newPage: () => Promise.reject(new Error('no browser in catalog tests')),
});

const CORE = [
  'browser_navigate',
  'browser_navigate_back',
  'browser_navigate_forward',
  'browser_snapshot',
  'browser_click',
  'browser_type',
  'browser_fill_form',
  'browser_select_option',
  'browser_hover',
  'browser_drag',
  'browser_press_key',
  'browser_file_upload',
  'browser_handle_dialog',
  'browser_evaluate',
  'browser_wait_for',
  'browser_tabs',
  'browser_take_screenshot',
  'browser_console_messages',
  'browser_network_requests',
  'browser_resize',
  'browser_close',
  'browser_find',
  'browser_get_text',
  'browser_request_user',
  'browser_network_request',
  'browser_emulate_media',
  'browser_drop',
  'browser_webmcp_list',
  'browser_webmcp_call',
];

// One wrong argument per tool, and the argument the error must name.
const BAD_ARGS: Record<string, [Record<string, unknown>, string]> = {
  browser_navigate: [{ url: 5 }, 'url'],
  browser_navigate_back: [{ steps: 'x' }, 'unknown argument "steps"'],
  browser_navigate_forward: [{ steps: 1 }, 'unknown argument "steps"'],
  browser_snapshot: [{ depth: -1 }, 'depth'],
  browser_click: [{ target: 'e1', doubleClick: 'yes' }, 'doubleClick'],
  browser_type: [{ target: 'e1' }, 'text'],
  browser_fill_form: [{ fields: 'all' }, 'fields'],
  browser_select_option: [{ target: 'e1', values: 'a' }, 'values'],
  browser_hover: [{ target: 7 }, 'target'],
  browser_drag: [{ startTarget: 'e1' }, 'endTarget'],
  browser_press_key: [{ key: ['a'] }, 'key'],
  browser_file_upload: [{ paths: '/tmp/a' }, 'paths'],
  browser_handle_dialog: [{ accept: 'yes' }, 'accept'],
  browser_evaluate: [{ function: 1 }, 'function'],
  browser_webmcp_list: [{ frame: 'main' }, 'frame'],
  browser_webmcp_call: [{ name: 'add', params: 'x' }, 'params'],
  browser_wait_for: [{ text: 3 }, 'text'],
  browser_tabs: [{ action: 'list', index: -1 }, 'index'],
  browser_take_screenshot: [{ fullPage: 'yes' }, 'fullPage'],
  browser_console_messages: [{ level: 'everything' }, 'level'],
  browser_network_requests: [{ filter: '' }, 'filter'],
  browser_resize: [{ width: 100 }, 'height'],
  browser_close: [{ force: true }, 'unknown argument "force"'],
  browser_find: [{ text: '' }, 'text'],
  browser_get_text: [{ target: '' }, 'target'],
  browser_request_user: [{ message: '' }, 'message'],
  browser_context_create: [{ name: '' }, 'name'],
  browser_context_switch: [{}, 'name'],
  browser_context_list: [{ all: true }, 'unknown argument "all"'],
  browser_context_close: [{ name: 'a b' }, 'name'],
  browser_mouse_click_xy: [{ x: 'left', y: 1 }, 'x'],
  browser_mouse_move_xy: [{ x: 1 }, 'y'],
  browser_mouse_drag_xy: [{ startX: 1, startY: 1, endX: 2 }, 'endY'],
  browser_mouse_wheel: [{ deltaY: 'down' }, 'deltaY'],
  browser_pdf_save: [{ filename: 3 }, 'filename'],
  browser_gif_start: [{ fps: 10 }, 'unknown argument "fps"'],
  browser_gif_stop: [{ filename: '' }, 'filename'],
  browser_network_request: [{ index: 1.5 }, 'index'],
  browser_emulate_media: [{ media: 'tv' }, 'media'],
  browser_drop: [{ target: 'e1', data: { 'text/plain': 1 } }, 'data'],
  browser_mouse_down: [{ button: 'back' }, 'button'],
  browser_mouse_up: [{ button: 4 }, 'button'],
  browser_highlight: [{ target: 'e1', style: 3 }, 'style'],
  browser_hide_highlight: [{ target: '' }, 'target'],
  browser_generate_locator: [{}, 'target'],
  browser_verify_element_visible: [{ role: 'button' }, 'accessibleName'],
  browser_verify_text_visible: [{ text: '' }, 'text'],
  browser_verify_list_visible: [{ element: 'l', target: 'ul', items: [] }, 'items'],
  browser_verify_value: [{ type: 'date', element: 'd', target: 'e1', value: 'x' }, 'type'],
};

describe('catalog', () => {
  it('has every core tool of the playwright-mcp vocabulary, with titles, descriptions and object schemas', () => {
    const names = allTools.map((t) => t.schema.name);
    for (const name of CORE) expect(names).toContain(name);
    expect(new Set(names).size).toBe(names.length);
    for (const tool of allTools) {
      expect(tool.schema.title.length).toBeGreaterThan(3);
      expect(tool.schema.description.length).toBeGreaterThan(20);
      expect(tool.schema.inputSchema.safeParse({}).success || tool.schema.inputSchema.safeParse(undefined).success === false).toBe(true);
    }
  });

  it('registers optional capabilities only when enabled', () => {
    const base = toolsFor().map((t) => t.schema.name);
    expect(base).toContain('browser_click');
    expect(base).toContain('browser_context_create');
    expect(base).not.toContain('browser_mouse_click_xy');
    expect(base).not.toContain('browser_pdf_save');
    const vision = toolsFor(['vision']).map((t) => t.schema.name);
    expect(vision).toContain('browser_mouse_wheel');
    expect(vision).not.toContain('browser_pdf_save');
    expect(base).not.toContain('browser_verify_value');
    expect(base).not.toContain('browser_highlight');
    expect(toolsFor(['testing']).map((t) => t.schema.name)).toContain('browser_generate_locator');
    expect(toolsFor(['devtools']).map((t) => t.schema.name)).toContain('browser_hide_highlight');
  });

  it('throws a protocol error for an unknown tool', async () => {
    await expect(callTool(session, 'browser_teleport', {})).rejects.toBeInstanceOf(UnknownToolError);
    await expect(callTool(session, 'browser_teleport', {})).rejects.toThrow('Unknown tool "browser_teleport"');
  });

  it('has a bad-argument case for every tool', () => {
    expect(Object.keys(BAD_ARGS).sort()).toEqual(allTools.map((t) => t.schema.name).sort());
  });

  for (const [name, [args, field]] of Object.entries(BAD_ARGS)) {
    it(`${name} answers wrong arguments with an error naming ${field}`, async () => {
      const result = await callTool(session, name, args);
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toContain(`Invalid arguments for ${name}:`);
      expect(text).toContain(field);
    });
  }
});

describe('which calls need the client’s folders (handed with the call by a gateway)', () => {
  it('an upload or drop of paths, a save under a given name, and a tool that always saves; nothing else', () => {
    expect(usesFiles('browser_file_upload', { paths: ['a.txt'] })).toBe(true);
    expect(usesFiles('browser_file_upload', {})).toBe(false);
    expect(usesFiles('browser_take_screenshot', { filename: 'shot.png' })).toBe(true);
    expect(usesFiles('browser_take_screenshot', {})).toBe(false);
    expect(usesFiles('browser_evaluate', { function: '() => 1', filename: 'out.json' })).toBe(true);
    expect(usesFiles('browser_pdf_save', {})).toBe(true);
    expect(usesFiles('browser_snapshot', {})).toBe(false);
    expect(usesFiles('no_such_tool', { filename: 'x.txt' })).toBe(false);
    // Arguments the tool refuses need nothing: the call fails before any file.
    expect(usesFiles('browser_file_upload', { paths: 'a.txt' })).toBe(false);
  });
});

describe('argument names', () => {
  it('points playwright-mcp users from ref to target', async () => {
    const text = textOf(await callTool(session, 'browser_click', { ref: 'e3', element: 'Send' }));
    expect(text).toContain('unknown argument "ref" (pass the ref as "target")');
    expect(text).toContain('"target" is required');
  });

  it('names the arguments a tool takes when one is misspelt', async () => {
    const text = textOf(await callTool(session, 'browser_console_messages', { levle: 'error' }));
    expect(text).toContain('unknown argument "levle" (it takes "level", "all", "filename")');
    expect(textOf(await callTool(session, 'browser_close', { force: true }))).toContain('(it takes no arguments)');
  });
});

describe('the gateway’s tool flags, as every host applies them', () => {
  it('sessionConfigFrom turns settings into the session config', async () => {
    const { sessionConfigFrom } = await import('../src/index.js');
    expect(
      sessionConfigFrom({
        snapshotMode: 'none',
        snapshotBoxes: true,
        actionTimeoutMs: 300,
        navigationTimeoutMs: 1500,
        consoleLevel: 'error',
        imageResponses: 'only',
        testIdAttribute: 'data-qa',
      }),
    ).toEqual({
      includeSnapshot: false,
      snapshotBoxes: true,
      actionTimeoutMs: 300,
      navigationTimeoutMs: 1500,
      consoleLevel: 'error',
      imageResponses: 'only',
      testIdAttribute: 'data-qa',
    });
    expect(sessionConfigFrom({ snapshotMode: 'full' })).toEqual({ snapshotChanges: false });
    expect(sessionConfigFrom({ snapshotMode: 'changes' })).toEqual({});
  });
});
