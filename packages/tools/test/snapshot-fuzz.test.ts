import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callTool } from '../src/index.js';
import { INJECTED_KEY } from '../src/injected/key.js';
import { call, textOf, useHarness } from './harness.js';

const h = useHarness();

// Random documents from the markup real pages mix: controls, links with and without urls, labels, fieldsets,
// tables and lists, ARIA roles and names, and the ways of hiding things. The parser repairs bad nesting, as it does
// on the web.
const words = fc.constantFrom('Save', 'Read more', 'Item 1', 'a: b', '"quoted"', 'Ünïcode ✓', '#tag', 'yes', '  ', '<b>');
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const control = fc.constantFrom(
  '<input>',
  '<input type="checkbox" checked>',
  '<input type="radio" name="r">',
  '<input type="range">',
  '<input type="hidden" value="h">',
  '<input type="file">',
  '<input type="password" value="p">',
  '<textarea>note</textarea>',
  '<select><option>One</option><option selected>Two</option></select>',
  '<select multiple><option>A</option><option>B</option></select>',
  '<button disabled>Off</button>',
  '<img alt="pic" src="data:,">',
  '<progress value="2" max="5"></progress>',
  '<div contenteditable="true">edit me</div>',
);
const link = fc
  .tuple(words, fc.constantFrom('/a', '/b', 'mailto:x@example.test', 'http://localhost:1/x', '#top', ''))
  .map(([t, href]) => `<a href="${href}">${escapeHtml(t)}</a>`);
const attributes = fc
  .tuple(
    fc.option(words, { nil: undefined }),
    fc.constantFrom('', ' aria-hidden="true"', ' style="display:none"', ' style="visibility:hidden"', ' hidden', ' style="display:contents"'),
    fc.constantFrom('', ' role="link" tabindex="0"', ' role="button"', ' role="checkbox" aria-checked="true"', ' role="none"', ' onclick="void 0"'),
  )
  .map(([label, hide, role]) => `${label === undefined ? '' : ` aria-label="${escapeHtml(label)}"`}${hide}${role}`);
const TAGS = ['div', 'span', 'p', 'ul', 'li', 'table', 'tr', 'td', 'label', 'fieldset', 'legend', 'h2', 'nav', 'section', 'form', 'button'];
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small' }, words.map(escapeHtml), control, link, tie('element')),
  element: fc.tuple(fc.constantFrom(...TAGS), attributes, fc.array(tie('tree'), { maxLength: 4 })).map(([tag, attrs, kids]) => {
    // Roles go only on tags without one of their own (a role on a <button> changes what it is).
    const own = tag === 'button' ? attrs.replace(/ role="[^"]*"( tabindex="0"| aria-checked="true")?/, '') : attrs;
    return `<${tag}${own}>${(kids as string[]).join('')}</${tag}>`;
  }),
}));
const page = fc.array(tree, { minLength: 1, maxLength: 6 }).map((parts) => (parts as string[]).join('\n'));

// Every element a person can act on that is shown: each must have a ref, written in the snapshot.
const INTERACTIVE = 'a[href], button, input:not([type=hidden]), select, textarea, [role=link], [role=button], [role=checkbox], [onclick], [contenteditable]';
// Runs in the page: each such element with the ref the snapshot gave it (found through the installed script's
// elementForRef, so the check does not depend on how refs are kept).
function refsOfInteractive(selector: string, key: string, refs: string[]): { ref: string | undefined; html: string }[] {
  const api = (window as unknown as Record<symbol, { elementForRef(ref: string): Element | null }>)[Symbol.for(key)]!;
  const refOf = new Map<Element | null, string>(refs.map((ref) => [api.elementForRef(ref), ref]));
  const out: { ref: string | undefined; html: string }[] = [];
  for (const el of document.querySelectorAll(selector)) {
    if (!el.checkVisibility({ visibilityProperty: true }) || el.closest('[aria-hidden="true"]')) continue;
    // A select shown as a combobox stands for its options; an editable region's inside is its value.
    if (el.parentElement?.closest('select, [contenteditable]')) continue;
    // A click handler around a control is the control's click target too: one ref, the control's, where it wraps
    // only that (the walk decides; here a handler with a control inside is not asked for a ref of its own).
    if (el.matches('[onclick]:not(a[href], button, input, select, textarea, [role], [contenteditable])') && el.querySelector(selector)) continue;
    out.push({ ref: refOf.get(el), html: el.outerHTML.slice(0, 120) });
  }
  return out;
}

describe('snapshot of random documents', () => {
  it('never fails, is stable, and writes a ref for every shown element a person can act on; old refs go stale', async () => {
    const s = await h.session({ snapshotMaxChars: Infinity, includeSnapshot: false });
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    const tab = s.tabs[0]!;
    const snapshot = async () => {
      const result = await callTool(s, 'browser_snapshot', {});
      const text = textOf(result);
      expect(result.isError, text).not.toBe(true);
      return /```yaml\n([\s\S]*?)\n?```/.exec(text)?.[1] ?? '';
    };
    let previousRefs: string[] = [];
    await fc.assert(
      fc.asyncProperty(page, async (html) => {
        await tab.page.setContent(`<!doctype html><title>Fuzz</title><body>${html}</body>`);
        const yaml = await snapshot();
        // Nothing changed: the same snapshot, the same refs.
        expect(await snapshot()).toBe(yaml);
        // A budget only cuts: what is shown is the start of the whole snapshot, and a note says the rest is not.
        // (Link urls aside: a cut walk weighs a link's name against the links it saw.)
        const small = await tab.snapshot({ maxChars: 300 });
        if (small !== yaml) {
          const lines = small.split('\n');
          expect(lines.at(-1)).toMatch(/^- note: "Snapshot cut at 300 characters/);
          const noUrls = (text: string) => text.replace(/ \[url=[^\]]*\]/g, '');
          expect(
            noUrls(`${yaml}\n`).startsWith(
              noUrls(
                lines
                  .slice(0, -1)
                  .map((l) => `${l}\n`)
                  .join(''),
              ),
            ),
          ).toBe(true);
        }
        // A ref of the document before never reaches an element of this one.
        for (const ref of previousRefs.slice(0, 3)) {
          const stale = await callTool(s, 'browser_get_text', { target: ref });
          expect(stale.isError).toBe(true);
          expect(textOf(stale)).toContain(`ref ${ref} is no longer on the page`);
        }
        previousRefs = [...yaml.matchAll(/\[ref=(e\d+)\]/g)].map((m) => m[1]!);
        for (const line of yaml.split('\n').filter(Boolean)) expect(line).toMatch(/^( {2})*- /);
        for (const { ref, html: el } of await tab.page.evaluate(
          refsOfInteractive,
          INTERACTIVE,
          INJECTED_KEY,
          [...yaml.matchAll(/\[ref=(e\d+)\]/g)].map((m) => m[1]!),
        )) {
          expect(ref, `no ref for ${el}`).toBeDefined();
          expect(yaml, `${el} (ref ${ref}) is not in the snapshot`).toContain(`[ref=${ref}]`);
        }
      }),
      // FUZZ_RUNS=5000 explores further when the walker changes.
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
  }, 1_200_000);

  it('acts on any ref of a random document with an answer: done, or an error that says why', async () => {
    const s = await h.session({ snapshotMaxChars: Infinity, includeSnapshot: false, actionTimeoutMs: 300 });
    await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
    await fc.assert(
      fc.asyncProperty(page, fc.nat(), fc.constantFrom('browser_click', 'browser_hover', 'browser_type'), async (html, pick, tool) => {
        const tab = s.tabs[0]!;
        await tab.page.setContent(`<!doctype html><title>Fuzz</title><body>${html}</body>`);
        const refs = [...(await call(s, 'browser_snapshot')).matchAll(/\[ref=(e\d+)\]/g)].map((m) => m[1]!);
        if (!refs.length) return;
        const target = refs[pick % refs.length]!;
        const result = await callTool(s, tool, tool === 'browser_type' ? { target, text: 'hi' } : { target });
        const text = textOf(result);
        // Failures are ours to explain: never a raw protocol or script error.
        if (result.isError) expect(text).not.toMatch(/Unexpected error|Protocol error|TypeError|ReferenceError/);
        // A file chooser or a navigation must not leave the next run stuck.
        if (tab.modalStates().length) await call(s, 'browser_file_upload', {});
      }),
      // 30 a run (each run a new seed): most of its time is the 300 ms an action on a hidden element waits.
      { numRuns: Number(process.env.FUZZ_RUNS ?? 30) },
    );
  }, 1_200_000);
});
