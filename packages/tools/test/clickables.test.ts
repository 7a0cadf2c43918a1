import { expect, it } from 'vitest';
import { INJECTED_SOURCE } from '../src/injected/generated.js';
import { call, useHarness } from './harness.js';

// What a person can click or hover on a page whose script wired it (addEventListener, `onclick =`, a framework that
// delegates from its root) or whose CSS reveals something on hover: nothing in the DOM shows it, and each needs a ref.
const h = useHarness();

/** The ref a snapshot line matching `pattern` (with `(e\d+)` where the ref is) carries; fails if none does. */
function refBy(snapshot: string, pattern: RegExp): string {
  const m = pattern.exec(snapshot);
  if (!m?.[1]) throw new Error(`no line matches ${pattern} in the snapshot:\n${snapshot}`);
  return m[1];
}

const picked = async (session: Awaited<ReturnType<typeof h.session>>) => (await session.currentTab()).page.$eval('#picked', (el) => el.textContent);

it('gives a ref to what a script listens on for a press, says why with [clickable], and a click reaches it', async () => {
  const session = await h.session();
  const snap = await call(session, 'browser_navigate', { url: h.server.url('/clickables.html') });
  const banana = refBy(snap, /- listitem \[clickable\] \[ref=(e\d+)\]: Banana/);
  const card = refBy(snap, /- generic \[clickable\] \[ref=(e\d+)\]: Open settings Theme, language and more/);
  const svelte = refBy(snap, /- generic \[clickable\] \[ref=(e\d+)\]: Svelte row/);
  // An <a> without href that handles a press is a link (as Chrome exposes it), not words folded into the paragraph.
  const terms = refBy(snap, /- link "terms" \[ref=(e\d+)\]/);
  // A root that delegates every kind of event is not a target of its own, and its content is not marked.
  expect(snap).toMatch(/- paragraph: Text inside the app shell/);
  expect(snap).not.toMatch(/\[clickable\] \[ref=e\d+\]:\n\s+- paragraph: Text inside/);

  await call(session, 'browser_click', { target: banana });
  expect(await picked(session)).toBe('Banana');
  await call(session, 'browser_click', { target: card });
  expect(await picked(session)).toBe('settings');
  await call(session, 'browser_click', { target: terms });
  expect(await picked(session)).toBe('terms');
  await call(session, 'browser_click', { target: svelte });
  expect(await picked(session)).toBe('svelte row');
});

it('gives a ref to what a CSS rule reveals something for on hover, marked [hoverable]; hovering it shows the submenu', async () => {
  const session = await h.session();
  const snap = await call(session, 'browser_navigate', { url: h.server.url('/clickables.html') });
  const products = refBy(snap, /- listitem \[hoverable\] \[ref=(e\d+)\]: Products/);
  expect(snap).not.toContain('Laptops');
  // A row whose actions appear on hover is a hover target; a cell that only changes its background is not.
  expect(snap).toMatch(/- row \[hoverable\] \[ref=e\d+\]/);
  expect(snap).not.toMatch(/cell "Invoice 7" \[hoverable\]/);
  // The menu's other item reveals nothing, and a link's :hover colour makes no mark.
  expect(snap).toMatch(/- listitem: About/);
  const hovered = await call(session, 'browser_hover', { target: products });
  expect(hovered).toMatch(/- link "Laptops"/);
});

it('sees listeners through DevTools marks where the page has no console functions (as in the person’s browser)', async () => {
  const session = await h.session();
  const { page } = await session.currentTab();
  await page.goto(h.server.url('/clickables.html'));
  // Installed without the console's getEventListeners, as Chrome installs it for an extension.
  await page.evaluate(INJECTED_SOURCE);
  const snap = await call(session, 'browser_snapshot');
  const banana = refBy(snap, /- listitem \[clickable\] \[ref=(e\d+)\]: Banana/);
  expect(snap).toMatch(/- link "terms" \[ref=e\d+\]/);
  expect(snap).toMatch(/- paragraph: Text inside the app shell/);
  await call(session, 'browser_click', { target: banana });
  expect(await picked(session)).toBe('Banana');
  // An item added later with its listener is seen in the next snapshot: the marks follow the page.
  await page.evaluate(() => {
    const li = document.createElement('li');
    li.textContent = 'Damson';
    li.addEventListener('click', () => undefined);
    document.getElementById('fruits')!.append(li);
  });
  expect(await call(session, 'browser_snapshot')).toMatch(/- listitem \[clickable\] \[ref=e\d+\]: Damson/);
});

it('lists a data grid’s rows in the order a person sees them: by aria-rowindex, else where the grid draws them', async () => {
  const session = await h.session();
  const snap = await call(session, 'browser_navigate', { url: h.server.url('/clickables.html') });
  const order = (...names: string[]) => names.map((n) => snap.indexOf(`gridcell "${n}"`));
  const sorted = (xs: number[]) => xs.every((x, i) => x > 0 && (i === 0 || x > xs[i - 1]!));
  expect(sorted(order('Apple', 'Banana', 'Cherry'))).toBe(true);
  expect(sorted(order('Fig', 'Lime', 'Plum'))).toBe(true);
});
