import { expect, it } from 'vitest';
import { call, useHarness } from './harness.js';
import type { ToolSession } from '../src/index.js';

// Typing on a page built from a real editor off the registry (@browsermcp/realapps: CodeMirror 6), judged by the
// editor's own document. The whole real-app task suite runs in the gateway's scenarios, in every mode.
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

async function open(session: ToolSession, page: string, ready: string): Promise<string> {
  await call(session, 'browser_navigate', { url: h.server.url(`/realapps/${page}`) });
  await call(session, 'browser_wait_for', { text: ready });
  return call(session, 'browser_snapshot');
}

it('CodeMirror: `slowly` types at the caret and keeps the document, as @playwright/mcp does; a plain type replaces it, and the answer says so only when it is true', async () => {
  const session = await h.session();
  const page = await open(session, 'codemirror-editor.html', 'Editor');
  const editor = refOf(page, 'textbox', 'const answer');
  const doc = async () => (await session.currentTab()).page.evaluate(() => (window as unknown as { editorDocument(): string }).editorDocument());
  const slow = await call(session, 'browser_type', { target: editor, text: '// typed ', slowly: true });
  expect(await doc()).toContain('const answer = 42;\nconsole.log(answer);');
  expect(await doc()).toContain('// typed ');
  // The answer names what ran, and says nothing against it (no "did not arrive").
  expect(slow).toContain(".pressSequentially('// typed ');");
  expect(slow).not.toContain('did not arrive');
  const replaced = await call(session, 'browser_type', { target: editor, text: 'let x = 1;' });
  expect(await doc()).toBe('let x = 1;');
  expect(replaced).toContain(".fill('let x = 1;');");
  expect(replaced).not.toContain('did not arrive');
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
  // Without code lines the words say a plain success; never this one.
  const plain = await h.session({ codegen: 'none' });
  const form = await call(plain, 'browser_navigate', { url: 'data:text/html,<label>Code <input maxlength="3"></label>' });
  const words = await call(plain, 'browser_type', { target: refOf(form, 'textbox', '"Code"'), text: 'ABCDEF' });
  expect(words).toContain('"ABCDEF" did not arrive as typed: ');
  expect(words).not.toContain('Typed "ABCDEF"');
  expect(await call(plain, 'browser_type', { target: refOf(form, 'textbox', '"Code"'), text: 'XY' })).toMatch(/^### Result\nTyped "XY" into /);
  const refused = await call(session, 'browser_type', { target: refOf(page, 'spinbutton', '"Age"'), text: 'forty' });
  expect(refused).toContain('holds ""');
});
