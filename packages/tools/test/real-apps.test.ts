import { expect, it } from 'vitest';
import { call, useHarness } from './harness.js';
import type { ToolSession } from '../src/index.js';

// Pages built from real component libraries off the registry (@browsermcp/realapps: Ant Design on React, Vue 3),
// driven as a scripted agent drives them: it reads only the snapshot, finds what it needs by role and visible name,
// acts on that ref, and the task is judged by the page's own state afterwards.
const h = useHarness();

/** The ref of the first snapshot line that is `role` and whose line, or the lines nested under it, read `text`. */
function refOf(snapshot: string, role: string, text: string): string {
  const lines = snapshot.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = new RegExp(`^(\\s*)- ${role}\\b.*\\[ref=([^\\]]+)\\]`).exec(line);
    if (!m) continue;
    const indent = m[1]!.length;
    let block = line;
    for (let j = i + 1; j < lines.length && /^(\s*)/.exec(lines[j]!)![1]!.length > indent; j++) block += `\n${lines[j]}`;
    if (block.includes(text)) return m[2]!;
  }
  throw new Error(`no ${role} reading ${JSON.stringify(text)} with a ref in the snapshot:\n${snapshot}`);
}

/** What the page itself shows in `selector` (its own state, not the tool's words). */
async function shown(session: ToolSession, selector: string): Promise<string> {
  return (await (await session.currentTab()).page.$eval(selector, (el) => el.textContent ?? '')).trim();
}

async function open(session: ToolSession, page: string, ready: string): Promise<string> {
  await call(session, 'browser_navigate', { url: h.server.url(`/realapps/${page}`) });
  await call(session, 'browser_wait_for', { text: ready });
  return call(session, 'browser_snapshot');
}

it('Ant Design: a date picker’s day cell, a table row that opens on click and a hoverable card each get a ref, marked [cursor=pointer] or [clickable], named as a person reads them', async () => {
  const session = await h.session();
  const page = await open(session, 'antd-booking.html', 'Book a room');
  // The picker's input is named by its <label for>.
  await call(session, 'browser_click', { target: refOf(page, 'textbox', '"Arrival"') });
  const calendar = await call(session, 'browser_snapshot');
  // A day cell: its text ("15"), not its title ("2024-03-15").
  const day = refOf(calendar, 'cell', '"15"');
  expect(calendar).toMatch(new RegExp(`cell "15" \\[cursor=pointer\\] \\[ref=${day}\\]`));
  await call(session, 'browser_click', { target: day });
  expect(await shown(session, '#chosen-date')).toBe('2024-03-15');
  expect(await (await session.currentTab()).page.$eval('#arrival', (el) => (el as HTMLInputElement).value)).toBe('2024-03-15');

  const after = await call(session, 'browser_snapshot');
  // A row opens on click (antd's onRow: React's handler, no role or cursor of its own): one ref for the row, none
  // repeated on each of its cells.
  const row = refOf(after, 'row', 'Garden suite');
  expect(after).toMatch(new RegExp(`row \\[clickable\\] \\[ref=${row}\\]`));
  // A title with nothing clickable about it: no mark (antd's Typography wires a click it does not show).
  expect(after).toMatch(/heading "Book a room" \[level=2\] \[ref=e\d+\]\n/);
  await call(session, 'browser_click', { target: row });
  expect(await shown(session, '#chosen-room')).toBe('Garden suite');
  // A hoverable card, found by its title.
  const card = refOf(after, 'generic', 'Half board');
  expect(after).toMatch(new RegExp(`generic \\[cursor=pointer\\] \\[ref=${card}\\]`));
  await call(session, 'browser_click', { target: card });
  expect(await shown(session, '#chosen-plan')).toBe('Half board');
});

it('Vue 3: list items with a click listener (no attribute, role or pointer) get refs and a click reaches them', async () => {
  const session = await h.session();
  const page = await open(session, 'vue-tasks.html', 'Today');
  const item = refOf(page, 'listitem', 'Call the plumber');
  // No pointer cursor to show it: marked [clickable], why it has a ref.
  expect(page).toMatch(new RegExp(`listitem \\[clickable\\] \\[ref=${item}\\]: Call the plumber`));
  await call(session, 'browser_click', { target: item });
  expect(await shown(session, '#done')).toBe('Done: Call the plumber');
});

it('CodeMirror: `slowly` types at the caret and keeps the document, as @playwright/mcp does; a plain type replaces it, and the answer says so only when it is true', async () => {
  const session = await h.session();
  const page = await open(session, 'codemirror-editor.html', 'Editor');
  const editor = refOf(page, 'textbox', 'const answer');
  const doc = async () => (await session.currentTab()).page.evaluate(() => (window as unknown as { editorDocument(): string }).editorDocument());
  const slow = await call(session, 'browser_type', { target: editor, text: '// typed ', slowly: true });
  expect(await doc()).toContain('const answer = 42;\nconsole.log(answer);');
  expect(await doc()).toContain('// typed ');
  expect(slow).toContain('Typed "// typed " into');
  const replaced = await call(session, 'browser_type', { target: editor, text: 'let x = 1;' });
  expect(await doc()).toBe('let x = 1;');
  expect(replaced).toContain('Typed "let x = 1;" into');
});

it('never answers "Typed" when the field does not hold it: a field that cuts or refuses the text is named with what it holds', async () => {
  const session = await h.session();
  const page = await call(session, 'browser_navigate', {
    url: 'data:text/html,<label>Code <input maxlength="3"></label><label>Age <input type="number"></label>',
  });
  const cut = await call(session, 'browser_type', { target: refOf(page, 'textbox', '"Code"'), text: 'ABCDEF' });
  expect(cut).toContain('"ABCDEF" did not arrive as typed: ');
  expect(cut).toContain('holds "ABC"');
  expect(cut).not.toContain('Typed "ABCDEF"');
  const refused = await call(session, 'browser_type', { target: refOf(page, 'spinbutton', '"Age"'), text: 'forty' });
  expect(refused).toContain('holds ""');
});
