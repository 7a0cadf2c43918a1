import { expect, it } from 'vitest';
import { call, refOf, useHarness } from './harness.js';

// Names as the accessible-name computation gives them, in the cases real component libraries hit: a <label for> on a
// widget that is not an input, a label slotted into a web component, aria-labelledby inside a shadow root, and visible
// content before title, CSS generated content.
const h = useHarness();

it('names widgets by <label for>, follows slots and the shadow root an id lives in, and reads content before title', async () => {
  const session = await h.session();
  const snap = await call(session, 'browser_navigate', { url: h.server.url('/names.html') });
  expect(snap).toMatch(/- checkbox "I agree to the terms" \[ref=e\d+\]/);
  expect(snap).toMatch(/- switch "Dark mode" \[ref=e\d+\]/);
  expect(snap).toMatch(/- textbox "Full name" \[ref=e\d+\]/);
  expect(snap).not.toContain("The page's own element");
  expect(snap).toMatch(/- gridcell "15" \[ref=e\d+\]/);
  // Generated content: an empty editor's placeholder, a cross drawn by ::after; an icon font's glyph is no name, so
  // the title names that button.
  expect(snap).toMatch(/- textbox "Ask anything" \[ref=e\d+\]/);
  expect(snap).toMatch(/- button "×" \[ref=e\d+\]/);
  expect(snap).toMatch(/- button "Settings" \[ref=e\d+\]/);
  // The label's text is not written again beside the control it names.
  expect(snap).not.toMatch(/- text: I agree to the terms/);
  // And the name is one an agent can act by: the checkbox is clicked through its ref.
  await call(session, 'browser_click', { target: refOf(snap, 'checkbox "I agree to the terms"') });
  expect(await call(session, 'browser_snapshot')).toMatch(/- checkbox "I agree to the terms" \[checked\]/);
});

it("clicks a web component's button over its slotted label: the label is the button's own, not another element", async () => {
  const session = await h.session();
  const snap = await call(session, 'browser_navigate', { url: h.server.url('/names.html') });
  await call(session, 'browser_click', { target: refOf(snap, 'button "Invite a friend"') });
  expect(await (await session.currentTab()).page.$eval('#invites', (el) => el.textContent)).toBe('1');
});
