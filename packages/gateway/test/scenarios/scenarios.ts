import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTask, TASKS, type CallTool, type TaskOutcome } from '@browsermcp/realapps/tasks';
import { picture, refusedRequests, sameColour, type FixtureServer } from '@browsermcp/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { refIn, text } from '../helpers.js';

// One list of functional scenarios, run through the gateway in each mode: a browser it launches, and the person's own
// browser through --extension. A scenario passes in both or names why it cannot (`only`).

export type Mode = 'launched' | 'extension';

/** Where the gateways save files, and the one other directory uploads may come from (with a file in it). */
const OUTPUT_DIR = mkdtempSync(join(tmpdir(), 'bmcp-scenario-out-'));
const FILE_ROOT = mkdtempSync(join(tmpdir(), 'bmcp-scenario-files-'));
const CV = join(FILE_ROOT, 'cv.txt');
writeFileSync(CV, 'Ada Lovelace, analyst');
/** A client's project folder, known to the gateway only as the client's MCP root. */
const PROJECT = mkdtempSync(join(tmpdir(), 'bmcp-scenario-project-'));
writeFileSync(join(PROJECT, 'brief.txt'), 'the project brief');
const SECRETS = join(FILE_ROOT, '.env');
writeFileSync(SECRETS, 'ACCOUNT_PASSWORD=hunter2-s3cret\nACCOUNT_NAME=ada@example.test\n');

/** The file a tool says it saved as `name`: in its key's own directory under --output-dir, which is private (0700). */
async function savedAs(answer: string, name: string): Promise<string> {
  const file = new RegExp(`Saved the \\w+ to (${OUTPUT_DIR}/caller-[0-9a-f]{16}/${name})`).exec(answer)?.[1];
  if (file === undefined) throw new Error(`not saved as ${name} in a key's directory under ${OUTPUT_DIR}: ${answer}`);
  expect((await stat(join(file, '..', '..'))).mode & 0o777).toBe(0o700);
  return file;
}

/** The flags both modes' gateways run with, so that each scenario sees the same settings. */
export const SCENARIO_FLAGS = [
  '--snapshot-max-chars',
  '2000',
  // @playwright/mcp's separator, and the fixture server's third name (blocked.localhost) on any port.
  '--blocked-origins',
  'https://blocked.example;blocked.localhost',
  '--output-dir',
  OUTPUT_DIR,
  '--file-roots',
  FILE_ROOT,
  // A client's own MCP roots count over HTTP (by default only inside --file-roots): the roots scenario uses them.
  '--trust-client-roots',
  '--caps',
  'testing,devtools,gif',
  '--secrets',
  SECRETS,
  '--max-log-entries',
  '300',
  '--console-lines-in-answer',
  '5',
  '--max-tab-memory',
  '256',
  // A call that waits for the person says so every 2 s (10 s by default), so the test need not wait long to hear it.
  '--progress-interval',
  '2',
];

export interface ModeRig {
  readonly mode: Mode;
  readonly server: FixtureServer;
  /** A fresh MCP session (the SDK client over Streamable HTTP), closed by the runner. */
  client(name: string, options?: { roots?: string[] }): Promise<Client>;
  /** Closes a session's tab the way the person would, found by its URL. */
  closeAsPerson(url: string): Promise<void>;
  /** Shows the session's tab with `url` in front, as the person clicking it would; returns how to look away again. */
  lookAt(url: string): Promise<() => Promise<void>>;
  /** Answers an agent's hand-off banner on the tab showing `url`, as the person would (only where one can see it). */
  /**
   * Answers an agent's hand-off banner on the tab showing `url`, as the person would (only where one can see it);
   * `outlined`: the element (a selector) the person must see outlined there meanwhile.
   */
  answerBanner(url: string, button: 'done' | 'decline', options?: { outlined?: string }): Promise<void>;
  /** The ids of the notifications the person's browser shows now (only where a person has one). */
  notifications?(): Promise<string[]>;
  /** After each scenario, once its session ended: fails if the scenario left the browser other than it found it. */
  afterScenario?(): Promise<void>;
}

interface Scenario {
  name: string;
  /** A scenario longer than the file's test timeout says how long it may take. */
  timeoutMs?: number;
  /** The MCP roots the scenario's client declares. */
  roots?: string[];
  run(rig: ModeRig, client: Client): Promise<void>;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => text(await client.callTool({ name, arguments: args }));
const callResult = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
/** What browser_evaluate returned: the JSON of its Result section. */
const evaluated = async <T>(client: Client, fn: string): Promise<T> => {
  const answer = await call(client, 'browser_evaluate', { function: fn });
  // The Result section runs to the next section, or to the end (the page section is left out when unchanged).
  const json = /### Result\n([\s\S]*?)(?:\n\n###|$)/.exec(answer)?.[1];
  if (json === undefined) throw new Error(`browser_evaluate answered no result:\n${answer}`);
  return JSON.parse(json) as T;
};

export const scenarios: Scenario[] = [
  {
    name: 'navigate, snapshot and click, each action with the Playwright code that replays it',
    async run({ server }, c) {
      const nav = await call(c, 'browser_navigate', { url: server.url('/index.html') });
      expect(nav).toContain('- Page Title: Fixture home');
      expect(nav).toContain(`### Ran Playwright code\n\`\`\`js\nawait page.goto('${server.url('/index.html')}');\n\`\`\``);
      const snap = await call(c, 'browser_snapshot');
      const clicked = await call(c, 'browser_click', { target: refIn(snap, 'button "Click me"') });
      expect(clicked).toContain('button "Clicked 1 times"');
      expect(clicked).toContain("await page.getByRole('button', { name: 'Click me' }).click();");
    },
  },
  {
    name: 'tabs: new, select 0, close 1, and the session carries on in the tab it selected',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/index.html') });
      expect(await call(c, 'browser_tabs', { action: 'new', url: server.url('/form.html') })).toContain('- 1: (current) [Form]');
      expect(await call(c, 'browser_tabs', { action: 'select', index: 0 })).toContain('- 0: (current) [Fixture home]');
      // The selection sticks: the next call without a tab runs in tab 0.
      expect(await call(c, 'browser_snapshot')).toContain('- Page Title: Fixture home');
      const closed = await call(c, 'browser_tabs', { action: 'close', index: 1 });
      expect(closed).not.toContain('[Form]');
      const list = await call(c, 'browser_tabs', { action: 'list' });
      expect(list).toContain('- 0: (current) [Fixture home]');
      expect(list).not.toContain('- 1:');
      expect(await call(c, 'browser_snapshot')).toContain('button "Click me"');
      expect(await call(c, 'browser_tabs', { action: 'new', url: server.url('/dialogs.html') })).toContain('- 1: (current) [Dialogs]');
      expect(await call(c, 'browser_tabs', { action: 'close' })).toContain('- 0: (current) [Fixture home]');
      expect(await call(c, 'browser_navigate', { url: server.url('/form.html') })).toContain('- Page Title: Form');
    },
  },
  {
    name: 'a tab the person closes is released and reported in the next answer, with where the session is now',
    async run(rig, c) {
      await call(c, 'browser_navigate', { url: rig.server.url('/index.html') });
      await call(c, 'browser_tabs', { action: 'new', url: rig.server.url('/form.html') });
      await rig.closeAsPerson(rig.server.url('/form.html'));
      await expect
        .poll(async () => call(c, 'browser_snapshot'), { timeout: 10_000 })
        .toContain(
          `### Note\nTab 1 (${rig.server.url('/form.html')}) was closed outside this session: the person closed it, or the page closed itself; now on tab 0 (${rig.server.url('/index.html')}).`,
        );
      expect(await call(c, 'browser_tabs', { action: 'list' })).not.toContain('- 1:');
      expect(await call(c, 'browser_click', { target: '#counter' })).toContain('button "Clicked 1 times"');
    },
  },
  {
    name: 'type, select and read a form',
    async run({ server }, c) {
      const snap = await call(c, 'browser_navigate', { url: server.url('/form.html') });
      await call(c, 'browser_type', { target: refIn(snap, 'textbox "Name"'), text: 'Ada' });
      await call(c, 'browser_select_option', { target: refIn(snap, 'combobox "Color"'), values: ['Blue'] });
      await call(c, 'browser_click', { target: refIn(snap, 'button "Submit"') });
      const submitted = await call(c, 'browser_evaluate', { function: "() => document.getElementById('out').textContent" });
      expect(submitted).toContain('\\"name\\":\\"Ada\\"');
      expect(submitted).toContain('\\"color\\":\\"b\\"');
    },
  },
  {
    name: 'a dialog blocks the page until it is handled',
    async run({ server }, c) {
      const snap = await call(c, 'browser_navigate', { url: server.url('/dialogs.html') });
      const opened = await call(c, 'browser_click', { target: refIn(snap, 'button "Confirm"') });
      expect(opened).toContain('### Modal state');
      expect(opened).toContain('Are you sure?');
      expect(await call(c, 'browser_handle_dialog', { accept: true })).toContain('confirmed');
    },
  },
  {
    name: 'prompt and confirm stay open until browser_handle_dialog answers them',
    async run({ server }, c) {
      const snap = await call(c, 'browser_navigate', { url: server.url('/dialogs.html') });
      const asked = await call(c, 'browser_click', { target: refIn(snap, 'button "Prompt"') });
      expect(asked).toContain('["prompt" dialog with message "Your name?"]');
      expect(await call(c, 'browser_handle_dialog', { accept: true, promptText: 'Zed' })).toContain('prompt: Zed');
      expect(await call(c, 'browser_click', { target: refIn(snap, 'button "Confirm"') })).toContain('["confirm" dialog with message "Are you sure?"]');
      expect(await call(c, 'browser_handle_dialog', { accept: false })).toContain('cancelled');
    },
  },
  {
    name: 'a page’s “Leave site?” after an agent’s click is held until browser_handle_dialog answers it: stay, then leave',
    async run({ server }, c) {
      const homeVisits = () => server.visits.filter((v) => v.endsWith('/index.html')).length;
      const snap = await call(c, 'browser_navigate', { url: server.url('/unsaved.html') });
      const before = homeVisits();
      await call(c, 'browser_type', { target: refIn(snap, 'textbox "Draft"'), text: 'half a thought' });
      const asked = await call(c, 'browser_click', { target: refIn(snap, 'link "Home"') });
      expect(asked).toContain('["beforeunload" dialog with message ');
      expect(asked).toContain(`- Page URL: ${server.url('/unsaved.html')}`);
      // Stay: the page and what was typed are still there.
      const stayed = await call(c, 'browser_handle_dialog', { accept: false });
      expect(stayed).toContain('- Page Title: Unsaved draft');
      expect(stayed).not.toContain('### Modal state');
      expect(await call(c, 'browser_evaluate', { function: "() => document.getElementById('draft').value" })).toContain('"half a thought"');
      expect(homeVisits()).toBe(before);
      // Leave: asked again, and this time the link is followed.
      expect(await call(c, 'browser_click', { target: refIn(snap, 'link "Home"') })).toContain('["beforeunload" dialog with message ');
      expect(await call(c, 'browser_handle_dialog', { accept: true })).toContain('- Page Title: Fixture home');
    },
  },
  {
    name: 'input reaches the page: click, checkbox, radio, typing and submit, hover, keys, a pointer drag',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/received.html') });
      const received = () => evaluated<string[]>(c, "() => Array.from(document.querySelectorAll('#log li'), (li) => li.textContent)");
      await call(c, 'browser_click', { target: '#approve' });
      await call(c, 'browser_click', { target: '#notify' });
      await call(c, 'browser_click', { target: 'input[value=express]' });
      expect(await call(c, 'browser_type', { target: '#q', text: 'lamps', submit: true })).toMatch(/\.fill\('lamps'\);\nawait page\..*\.press\('Enter'\);/);
      await call(c, 'browser_hover', { target: '#help' });
      await call(c, 'browser_click', { target: '#keys' });
      await call(c, 'browser_press_key', { key: 'ArrowDown' });
      await call(c, 'browser_drag', { startTarget: '#card', endTarget: '#done' });
      expect(await received()).toEqual([
        'clicked Approve',
        'Notify me on',
        'shipping express',
        'Enter in query',
        'searched lamps',
        'hovered Help',
        'key ArrowDown',
        'dropped Card on Done',
      ]);
      const snap = await call(c, 'browser_snapshot');
      expect(snap).toContain('checkbox "Notify me" [checked]');
      expect(snap).toContain('radio "Express" [checked]');
    },
  },
  {
    name: 'the real-app task suite: every task on pages of real component libraries done as a scripted agent does it, judged by the page, no false success',
    // 26 tasks, each a page of its own: longer than one scenario of a few calls.
    timeoutMs: 120_000,
    async run({ server }, c) {
      const outcomes: TaskOutcome[] = [];
      const tool: CallTool = async (name, args) => {
        const result = await c.callTool({ name, arguments: args });
        return { text: text(result), isError: result.isError === true };
      };
      for (const task of TASKS) outcomes.push(await runTask(task, tool, (path) => server.url(path)));
      const failed = outcomes.filter((o) => !o.done).map((o) => `${o.id}${o.falseSuccess ? ' (FALSE SUCCESS)' : ''}: ${o.why}`);
      expect(failed).toEqual([]);
    },
  },
  {
    name: 'clicks land in frames of both origins and in a shadow root; a link of a single-page app changes its route',
    async run({ server }, c) {
      const snap = await call(c, 'browser_navigate', { url: server.url('/frames.html') });
      const inner = snap
        .split('\n')
        .filter((l) => l.includes('button "Inner button"'))
        .map((l) => /\[ref=([^\]]+)\]/.exec(l)![1]!);
      expect(inner).toHaveLength(2);
      for (const ref of inner) await call(c, 'browser_click', { target: ref });
      await call(c, 'browser_click', { target: refIn(snap, 'button "Shadow button"') });
      // Each click's answer shows what it changed; the page now shows all three.
      const after = await call(c, 'browser_snapshot');
      expect(after).toContain(`inner clicked at ${new URL(server.url('/')).host}`);
      expect(after).toContain(`inner clicked at ${new URL(server.crossUrl('/')).host}`);
      expect(after).toContain('shadow clicked');
      const spa = await call(c, 'browser_navigate', { url: server.url('/spa.html') });
      const routed = await call(c, 'browser_click', { target: refIn(spa, 'link "Settings"') });
      expect(routed).toContain('heading "Settings view"');
      expect(routed).toContain(`- Page URL: ${server.url('/spa/settings')}`);
    },
  },
  {
    name: 'an agent’s page runs as a page in front: visible, focused, timers and animation frames at full speed',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/index.html') });
      const page = await evaluated<{ visibility: string; focused: boolean; frames: number; ticks: number }>(
        c,
        `() => new Promise((resolve) => {
          let frames = 0, ticks = 0;
          const timer = setInterval(() => ticks++, 10);
          const frame = () => { frames++; requestAnimationFrame(frame); };
          requestAnimationFrame(frame);
          setTimeout(() => { clearInterval(timer); resolve({ visibility: document.visibilityState, focused: document.hasFocus(), frames, ticks }); }, 500);
        })`,
      );
      expect(page).toMatchObject({ visibility: 'visible', focused: true });
      // A hidden tab gets no animation frames and a timer at most once a second; a page in front ~30 and ~50.
      expect(page.frames).toBeGreaterThan(10);
      expect(page.ticks).toBeGreaterThan(20);
    },
  },
  {
    name: 'console messages, evaluate, and waiting for text',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/console.html') });
      expect(await call(c, 'browser_console_messages', { level: 'debug' })).toContain('[LOG] hello from log');
      expect(await call(c, 'browser_evaluate', { function: "() => { setTimeout(() => document.body.append('later text'), 300); return 6 * 7; }" })).toContain(
        '42',
      );
      expect(await call(c, 'browser_wait_for', { text: 'later text' })).toContain('later text');
    },
  },
  {
    name: 'back and forward',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/index.html') });
      await call(c, 'browser_navigate', { url: server.url('/form.html') });
      expect(await call(c, 'browser_navigate_back')).toContain('- Page Title: Fixture home');
      expect(await call(c, 'browser_navigate_forward')).toContain('- Page Title: Form');
    },
  },
  {
    name: 'a screenshot is a picture of the page, also of an agent tab behind the person’s',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/painted.html') });
      const shot = await callResult(c, 'browser_take_screenshot');
      const image = (shot.content as Array<{ type: string; mimeType?: string; data?: string }>).find((p) => p.type === 'image' && p.mimeType === 'image/png');
      expect(text(shot)).not.toContain('### Error');
      // Judged by its pixels: the page's red and blue blocks where the page draws them, white below (a blank frame
      // of the viewport's size once passed a check of its byte count).
      const shown = picture(Buffer.from(image!.data!, 'base64'));
      expect(shown.width).toBeGreaterThan(300);
      expect(shown.height).toBeGreaterThan(200);
      expect(shown.at(0.25, 0.2), 'the red block').toSatisfy((rgb: number[]) => sameColour(rgb, [220, 20, 60]));
      expect(shown.at(0.75, 0.2), 'the blue block').toSatisfy((rgb: number[]) => sameColour(rgb, [30, 90, 200]));
      expect(shown.at(0.5, 0.5), 'the page below').toSatisfy((rgb: number[]) => sameColour(rgb, [255, 255, 255]));
      // The whole page, and one element: the same pixels where they are.
      const pngOf = async (args: Record<string, unknown>) => {
        const answer = await callResult(c, 'browser_take_screenshot', args);
        const part = (answer.content as Array<{ type: string; data?: string }>).find((p) => p.type === 'image');
        expect(part, text(answer)).toBeDefined();
        return picture(Buffer.from(part!.data!, 'base64'));
      };
      const whole = await pngOf({ fullPage: true });
      expect(whole.at(0.25, 0.05), 'the red block, full page').toSatisfy((rgb: number[]) => sameColour(rgb, [220, 20, 60]));
      const blue = await pngOf({ target: '#blue', element: 'the blue block' });
      for (const [fx, fy] of [
        [0.1, 0.1],
        [0.5, 0.5],
        [0.9, 0.9],
      ] as const) {
        expect(blue.at(fx, fy), `the element, blue throughout (${blue.width}×${blue.height}, at ${fx},${fy}: ${blue.at(fx, fy).join(',')})`).toSatisfy(
          (rgb: number[]) => sameColour(rgb, [30, 90, 200]),
        );
      }
      // And GIF frames, one per action.
      await call(c, 'browser_navigate', { url: server.url('/index.html') });
      await call(c, 'browser_gif_start');
      await call(c, 'browser_click', { target: '#counter' });
      const gif = await callResult(c, 'browser_gif_stop');
      expect(text(gif)).toMatch(/Recorded [2-9] frames/);
      expect((gif.content as Array<{ type: string; mimeType?: string }>).some((p) => p.type === 'image' && p.mimeType === 'image/gif')).toBe(true);
    },
  },
  {
    name: 'uploads come from the allowed roots only (the working directory, --output-dir, --file-roots), and a screenshot with a filename is saved to --output-dir',
    async run(rig, c) {
      await call(c, 'browser_navigate', { url: rig.server.url('/form.html') });
      expect(await call(c, 'browser_click', { target: '#upload' })).toContain('[File chooser]');
      const refused = await callResult(c, 'browser_file_upload', { paths: ['/etc/passwd'] });
      expect(refused.isError).toBe(true);
      // The client names no roots: on this machine, with one key (the launched rig's), the gateway's working directory
      // stands for its project; with two (the person's rig) nobody owns it alone, so it does not count.
      // The output directory a key uploads from is its own, under --output-dir.
      const cwd = rig.mode === 'launched' ? `${process.cwd()}, ` : '';
      expect(text(refused)).toContain(`/etc/passwd is outside the allowed file roots (${cwd}${OUTPUT_DIR}/caller-`);
      expect(text(refused)).toMatch(new RegExp(`caller-[0-9a-f]{16}, ${FILE_ROOT}\\)`));
      // The server's own files are never read, even inside --file-roots (the --secrets file is there); nor the
      // kernel's view of the server's process (its variables), which the extension's uploads read in Node.
      const secrets = await callResult(c, 'browser_file_upload', { paths: [SECRETS] });
      expect(secrets.isError).toBe(true);
      expect(text(secrets)).toContain(`${SECRETS} is one of this server's own files`);
      const environ = await callResult(c, 'browser_file_upload', { paths: ['/proc/self/environ'] });
      expect(environ.isError).toBe(true);
      expect(text(environ)).toContain("/proc/self/environ is the system's view of processes and devices");
      // The chooser stays open for a second try, with a path the roots allow.
      expect(await call(c, 'browser_file_upload', { paths: [CV] })).toContain(`Uploaded ${CV}`);
      const seen = await call(c, 'browser_evaluate', {
        function: "async () => { const f = document.querySelector('#upload').files[0]; return f.name + '|' + (await f.text()); }",
      });
      expect(seen).toContain('"cv.txt|Ada Lovelace, analyst"');

      const lookAway = await rig.lookAt(rig.server.url('/form.html'));
      try {
        const saved = await callResult(c, 'browser_take_screenshot', { filename: `${rig.mode}/form.png` });
        const file = await savedAs(text(saved), `${rig.mode}/form.png`);
        expect((await readFile(file)).subarray(1, 4).toString()).toBe('PNG');
        const outside = await callResult(c, 'browser_take_screenshot', { filename: '../form.png' });
        expect(outside.isError).toBe(true);
        expect(text(outside)).toContain('must be a file name inside the output directory');
      } finally {
        await lookAway();
      }
    },
  },
  {
    name: '@playwright/mcp’s tools: media emulation, a dropped file, a request’s details, checks and a locator',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/drop.html') });
      await call(c, 'browser_emulate_media', { colorScheme: 'dark' });
      expect(await call(c, 'browser_evaluate', { function: "() => matchMedia('(prefers-color-scheme: dark)').matches" })).toContain('### Result\ntrue');
      await call(c, 'browser_drop', { target: '#zone', paths: [CV], data: { 'text/plain': 'hi' } });
      expect(await call(c, 'browser_get_text', { target: '#out' })).toContain('{"text":"hi","files":["cv.txt:Ada Lovelace, analyst"]}');
      await call(c, 'browser_evaluate', { function: "() => fetch('/api/data', { method: 'POST', body: 'ping' }).then((r) => r.text())" });
      const index = /(\d+)\. \[POST\]/.exec(await call(c, 'browser_network_requests'))?.[1];
      expect(await call(c, 'browser_network_request', { index: Number(index), part: 'response-body' })).toContain('"items"');
      expect(await call(c, 'browser_verify_element_visible', { role: 'region', accessibleName: 'Drop zone' })).toContain('Done');
      expect((await callResult(c, 'browser_verify_text_visible', { text: 'Not on this page' })).isError).toBe(true);
      expect(await call(c, 'browser_generate_locator', { target: '#zone' })).toContain("getByTestId('drop-zone')");
      await call(c, 'browser_highlight', { target: '#zone' });
      expect(await call(c, 'browser_hide_highlight', {})).toContain('Removed 1 highlight');
    },
  },
  {
    name: 'hand a step to the person: a banner they answer where someone can see the browser; headless, at once "nobody"',
    async run(rig, c) {
      const url = rig.server.url('/index.html?handoff=1');
      await call(c, 'browser_navigate', { url });
      if (rig.mode === 'launched') {
        // The test's launched browser is headless: nobody could answer.
        const nobody = await callResult(c, 'browser_request_user', { message: 'Please log in' });
        expect(nobody.isError).toBe(true);
        expect(text(nobody)).toContain('No person can see this browser (it runs headless)');
        return;
      }
      const asked = callResult(c, 'browser_request_user', { message: 'Please solve the captcha', target: '#counter' });
      // The person hears of it even with the extension unpinned: a notification, gone once they answered.
      await expect.poll(() => rig.notifications!(), { timeout: 10_000 }).toContainEqual(expect.stringMatching(/^handoff:/));
      await rig.answerBanner(url, 'done', { outlined: '#counter' });
      expect(text(await asked)).toContain('The person pressed Done (at #counter)');
      await expect.poll(() => rig.notifications!(), { timeout: 10_000 }).not.toContainEqual(expect.stringMatching(/^handoff:/));
      expect(await call(c, 'browser_evaluate', { function: "() => document.querySelectorAll('[data-browsermcp-highlight]').length" })).toContain(
        '### Result\n0',
      );
      const declined = callResult(c, 'browser_request_user', { message: 'Please confirm the payment' });
      await rig.answerBanner(url, 'decline');
      expect(text(await declined)).toContain('The person declined: they will not do "Please confirm the payment"');
    },
  },
  {
    name: 'the gateway’s --snapshot-max-chars cuts a big page’s snapshot',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/table?rows=300') });
      const snap = await call(c, 'browser_snapshot');
      const yaml = /```yaml\n([\s\S]*?)\n```/.exec(snap)?.[1] ?? '';
      // 300 rows make tens of thousands of characters; the budget (2,000) and its note remain.
      expect(yaml.length).toBeLessThan(2_500);
      expect(snap).toContain('the rest of the page is not shown');
    },
  },
  {
    name: 'a snapshot saved with a filename is whole, even when it leaves the page in several parts',
    async run(rig, c) {
      await call(c, 'browser_navigate', { url: rig.server.url('/table?rows=3000') });
      const file = await savedAs(await call(c, 'browser_snapshot', { filename: `${rig.mode}/table.yaml` }), `${rig.mode}/table.yaml`);
      const yaml = await readFile(file, 'utf8');
      // Over half a million characters: three parts of 192 K, joined in order with nothing lost or repeated.
      expect(yaml.length).toBeGreaterThan(2 * 196_608);
      const rows = [...yaml.matchAll(/- button "Edit (\d+)" \[ref=e\d+\]/g)].map((m) => Number(m[1]));
      expect(rows).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
      expect(yaml).not.toContain('the rest of the page is not shown');
    },
  },
  {
    name: 'the gateway’s --blocked-origins refuses a navigation',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/index.html') });
      const refused = await callResult(c, 'browser_navigate', { url: 'https://blocked.example/account' });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain("https://blocked.example is blocked by the gateway's --blocked-origins.");
    },
  },
  {
    name: 'a page that spams its console: each tab keeps --max-log-entries, an answer carries --console-lines-in-answer',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/index.html') });
      const spam = await call(c, 'browser_evaluate', { function: "() => { for (let i = 0; i < 400; i++) console.log('spam ' + i); }" });
      const lines = spam.split('### New console messages\n')[1]!.split('\n\n')[0]!.split('\n');
      // 400 logged, 300 kept: 5 shown, 295 kept and 100 dropped counted.
      expect(lines).toEqual([
        '- … 395 earlier messages not shown (browser_console_messages lists the last 300)',
        ...Array.from({ length: 5 }, (_, i) => `- [LOG] spam ${395 + i}`),
      ]);
      const listed = await call(c, 'browser_console_messages', { level: 'debug' });
      expect(listed).toContain('Total messages: 300');
      // The 300 kept (spam 100 to 399); the newest 200 listed, the rest counted.
      expect(listed).toContain('… 100 earlier messages not shown; pass "filename" to save them all\n[LOG] spam 200\n');
      expect(listed).toContain('[LOG] spam 399');
    },
  },
  {
    name: 'a page that keeps allocating after its call returned is closed past --max-tab-memory, and its agent told why',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/index.html') });
      await call(c, 'browser_evaluate', {
        function: '() => { globalThis.hoard = []; setInterval(() => hoard.push(new Uint8Array(16 * 1024 * 1024).fill(1)), 100); }',
      });
      let answer = '';
      for (let i = 0; i < 40 && !answer.includes('was closed: its page held'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        answer = await call(c, 'browser_tabs', { action: 'list' });
      }
      expect(answer).toMatch(
        /The tab with http:\/\/[^ ]+\/index\.html was closed: its page held \d+ MB of memory, past this session's limit of 256 MB \(the gateway's --max-tab-memory\)/,
      );
      // Its only tab is gone from its list.
      expect(answer).not.toContain('[Fixture home]');
    },
  },
  {
    name: 'the origin lists hold on every request a page makes: subresources, fetches, frames, links, redirects, scripts',
    async run({ server }, c) {
      const blockedHost = new URL(server.blockedOrigin).host;
      const reached = () => server.visits.filter((v) => v.startsWith(blockedHost));
      const opened = await call(c, 'browser_navigate', { url: server.url('/ways-out.html') });
      // The image, frame and fetch refused around DOMContentLoaded are told in the navigation's answer or the next.
      let told = opened;
      await expect
        .poll(async () => {
          told += await call(c, 'browser_evaluate', { function: "() => document.getElementById('fetch').textContent" });
          return told.includes('fetch: refused') ? refusedRequests(told).count : 0;
        })
        .toBe(3);
      expect(new Set(refusedRequests(told).origins)).toEqual(new Set([server.blockedOrigin]));
      const clicked = await call(c, 'browser_click', { target: refIn(opened, 'link "Leave by link"') });
      expect(clicked).toContain(`The page's request for ${server.blockedOrigin}/item/by-link was refused`);
      const redirected = await callResult(c, 'browser_navigate', { url: server.url(`/redirect?to=${server.blockedOrigin}/item/by-redirect`) });
      expect(redirected.isError).toBe(true);
      expect(text(redirected)).toContain(
        `was stopped at ${server.blockedOrigin}/item/by-redirect: ${server.blockedOrigin} is blocked by the gateway's --blocked-origins.`,
      );
      await call(c, 'browser_navigate', { url: server.url('/index.html') });
      const scripted = await call(c, 'browser_evaluate', { function: `() => { location.href = '${server.blockedOrigin}/item/by-script'; }` });
      await expect
        .poll(async () => scripted + (await call(c, 'browser_tabs', { action: 'list' })))
        .toContain(`${server.blockedOrigin}/item/by-script was refused`);
      expect(reached()).toEqual([]);
    },
  },
  {
    name: "uploads from the client's MCP roots, a relative name in the first, and saves a name it gives there; another client's root is not this one's",
    roots: [PROJECT],
    async run(rig, c) {
      await call(c, 'browser_navigate', { url: rig.server.url('/form.html') });
      await call(c, 'browser_click', { target: '#upload' });
      expect(await call(c, 'browser_file_upload', { paths: ['brief.txt'] })).toContain('Uploaded brief.txt');
      const seen = await call(c, 'browser_evaluate', {
        function: "async () => { const f = document.querySelector('#upload').files[0]; return f.name + '|' + (await f.text()); }",
      });
      expect(seen).toContain('"brief.txt|the project brief"');
      // A name the model gives lands in the client's workspace (its first root), as @playwright/mcp saves it.
      const saved = await call(c, 'browser_evaluate', { function: '() => document.title', filename: `saved-${rig.mode}/title.txt` });
      expect(saved).toContain(`Saved the result to saved-${rig.mode}/title.txt`);
      expect(await readFile(join(PROJECT, `saved-${rig.mode}`, 'title.txt'), 'utf8')).toBe('"Form"');
      const other = await rig.client('no roots');
      try {
        await call(other, 'browser_navigate', { url: rig.server.url('/form.html') });
        await call(other, 'browser_click', { target: '#upload' });
        const refused = await callResult(other, 'browser_file_upload', { paths: [join(PROJECT, 'brief.txt')] });
        expect(refused.isError).toBe(true);
        expect(text(refused)).toContain('is outside the allowed file roots');
      } finally {
        await (other.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
        await other.close();
      }
    },
  },
  {
    name: '--secrets: a secret typed or filled by name reaches the page as its value, and never comes back in an answer',
    async run({ server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/form.html') });
      await call(c, 'browser_type', { target: '#name', text: 'ACCOUNT_PASSWORD' });
      await call(c, 'browser_fill_form', { fields: [{ target: 'textarea', name: 'Bio', type: 'textbox', value: 'ACCOUNT_NAME' }] });
      // The page has the values: it echoes them back, and the answer shows the names instead.
      const echoed = await call(c, 'browser_evaluate', {
        function: "() => document.querySelector('#name').value + ' ' + document.querySelector('textarea').value",
      });
      expect(echoed).toContain('"<secret>ACCOUNT_PASSWORD</secret> <secret>ACCOUNT_NAME</secret>"');
      expect(echoed).not.toContain('hunter2');
      const snapshot = await call(c, 'browser_snapshot');
      expect(snapshot).toContain('<secret>ACCOUNT_PASSWORD</secret>');
      expect(snapshot).not.toContain('hunter2-s3cret');
      expect(await call(c, 'browser_evaluate', { function: "() => document.querySelector('#name').value === 'hunter2-s3cret'" })).toContain('true');
      // Encoded or spelled apart by the page, it does not come back either.
      const forms = await call(c, 'browser_evaluate', {
        function:
          "() => { const v = document.querySelector('#name').value; return [btoa(v), btoa(JSON.stringify({ user: 'ada', v })), [...v].map((ch) => ch.charCodeAt(0).toString(16)).join(''), encodeURIComponent(v), v.split('').join(' ')]; }",
      });
      expect(forms.match(/<secret>ACCOUNT_PASSWORD<\/secret>/g)).toHaveLength(5);
      for (const form of [Buffer.from('hunter2-s3cret').toString('base64'), Buffer.from('hunter2-s3cret').toString('hex'), 'h u n t e r 2'])
        expect(forms).not.toContain(form);
      // Nor in a picture: the field holding it is painted over (its colour across the field), and given back after.
      await call(c, 'browser_evaluate', {
        function: "() => { document.querySelector('#name').style.cssText = 'width: 300px; height: 40px; font-size: 24px'; }",
      });
      const shot = await callResult(c, 'browser_take_screenshot', { target: '#name' });
      const image = (shot.content as Array<{ type: string; data?: string }>).find((part) => part.type === 'image');
      expect(image, text(shot)).toBeDefined();
      const field = picture(Buffer.from(image!.data!, 'base64'));
      for (const fx of [0.2, 0.5, 0.8]) expect(field.at(fx, 0.5), `the field at ${fx}`).toSatisfy((rgb: number[]) => sameColour(rgb, [31, 35, 40], 12));
      expect(await call(c, 'browser_evaluate', { function: "() => document.querySelector('#name').getAttribute('style')" })).toContain(
        '"width: 300px; height: 40px; font-size: 24px;"',
      );
    },
  },
  {
    name: 'named contexts: their own cookies in a launched browser, a clear refusal in the person’s browser',
    async run({ mode, server }, c) {
      const created = await callResult(c, 'browser_context_create', { name: 'work' });
      if (mode === 'launched') {
        expect(created.isError).toBeFalsy();
        expect(await call(c, 'browser_navigate', { url: server.url('/index.html') })).toContain('Fixture home');
        await call(c, 'browser_context_close', { name: 'work' });
      } else {
        expect(created.isError).toBe(true);
        expect(text(created)).toMatch(/context/i);
      }
    },
  },
  {
    name: 'a cancelled call stops at once: the session goes on, and a script it left spinning is stopped',
    async run({ mode, server }, c) {
      await call(c, 'browser_navigate', { url: server.url('/index.html') });
      // A 60 s wait, cancelled: the next call does not wait behind it.
      const waiting = new AbortController();
      const wait = c.callTool({ name: 'browser_wait_for', arguments: { time: 60 } }, undefined, { signal: waiting.signal });
      setTimeout(() => waiting.abort('changed my mind'), 300);
      await expect(wait).rejects.toThrow(/changed my mind/);
      const started = Date.now();
      expect(await call(c, 'browser_snapshot')).toContain('- Page Title: Fixture home');
      expect(Date.now() - started).toBeLessThan(30_000);
      // A script that never ends, cancelled: the page answers again, and the next answer says what was done.
      const spinning = new AbortController();
      const spin = c.callTool({ name: 'browser_evaluate', arguments: { function: '() => { while (true) {} }' } }, undefined, { signal: spinning.signal });
      setTimeout(() => spinning.abort('enough'), 500);
      await expect(spin).rejects.toThrow(/enough/);
      const after = await call(c, 'browser_evaluate', { function: '() => document.title' });
      // Chrome 156 lets no extension stop a page's script (150 does): then the tab is replaced, and the answer says why.
      if (mode === 'launched' || !after.includes('kept running a script')) {
        expect(after).toContain('"Fixture home"');
        expect(after).toContain("browser_evaluate was cancelled by its caller; to free the tab, browsermcp stopped the page's script");
      } else {
        expect(after).toContain('kept running a script that this browser does not let browsermcp stop, and opened a new one in its place');
        expect(after).toContain('- Page URL: about:blank');
      }
    },
  },
  {
    name: 'browser_navigate gets out of pages that fight back: alert loops, beforeunload, busy scripts, self-navigation',
    async run({ server }, c) {
      const home = server.url('/index.html');
      // Alert after alert, started by a click: the click's answer shows the dialog; navigating dismisses them all.
      await call(c, 'browser_navigate', { url: server.url('/hostile-alerts.html') });
      expect(await call(c, 'browser_click', { target: 'button' })).toContain('"alert" dialog with message "again"');
      const left = await call(c, 'browser_navigate', { url: home });
      expect(left).toContain('- Page Title: Fixture home');
      expect(left).toMatch(/browsermcp dismissed (a dialog|[\d,]+ dialogs)/);
      // beforeunload asks to stay: a navigation by the agent does not ask.
      await call(c, 'browser_navigate', { url: server.url('/hostile-unload.html') });
      expect(await call(c, 'browser_navigate', { url: home })).toContain('- Page Title: Fixture home');
      // A script that keeps the page busy: stopped, and the page left with scripts off.
      await call(c, 'browser_navigate', { url: server.url('/hostile-busy.html') });
      await call(c, 'browser_click', { target: 'button' });
      expect(await call(c, 'browser_navigate', { url: home })).toContain('- Page Title: Fixture home');
      // A page that navigates itself every 10 ms.
      await callResult(c, 'browser_navigate', { url: server.url('/hostile-hop.html?go') });
      expect(await call(c, 'browser_navigate', { url: home })).toContain('- Page Title: Fixture home');
      expect(await call(c, 'browser_evaluate', { function: '() => document.title' })).toContain('"Fixture home"');
    },
  },
];

/** Runs every scenario, each in a fresh MCP session, against the rig `start` makes (once per file). */
export function runScenarios(mode: Mode, getRig: () => ModeRig): void {
  describe(`scenarios (${mode})`, () => {
    for (const scenario of scenarios) {
      it(
        scenario.name,
        async () => {
          const rig = getRig();
          const client = await rig.client(`scenario ${scenario.name.slice(0, 20)}`, scenario.roots ? { roots: scenario.roots } : {});
          try {
            await scenario.run(rig, client);
          } finally {
            // Ends the MCP session, which closes its tabs, so the next scenario starts from a still browser.
            await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
            await client.close();
          }
          await rig.afterScenario?.();
        },
        scenario.timeoutMs,
      );
    }
  });
}
