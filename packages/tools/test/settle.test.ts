import { expect, it } from 'vitest';
import { call, refOf, useHarness } from './harness.js';

// What an action's answer shows is the page as a person sees it once the action is over, not a frame of its way there.
const h = useHarness();

it('answers a click that closes a fading popup with the popup gone, not half-faded (as Ant Design closes its pickers)', async () => {
  const session = await h.session();
  await call(session, 'browser_navigate', { url: h.server.url('/fading-popup.html') });
  const opened = await call(session, 'browser_click', { target: refOf(await call(session, 'browser_snapshot'), 'button "Pick a fruit"') });
  // Its empty focus stops are nothing a person sees or clicks: no ref, no line.
  expect(opened).toMatch(/- generic \[cursor=pointer\] \[ref=e\d+\]: Banana/);
  expect(opened).toMatch(
    /- generic \[clickable\] \[ref=e\d+\]:\n\s+- generic \[cursor=pointer\] \[ref=e\d+\]: Apple\n\s+- generic \[cursor=pointer\] \[ref=e\d+\]: Banana\n```/,
  );
  const banana = /- generic \[cursor=pointer\] \[ref=(e\d+)\]: Banana/.exec(opened)![1]!;

  const picked = await call(session, 'browser_click', { target: banana });
  const { page } = await session.currentTab();
  expect(await page.$eval('#picked', (el) => el.textContent)).toBe('Banana');
  expect(await page.$eval('#popup', (el) => (el as HTMLElement).hidden)).toBe(true);
  // The answer agrees with the page: the popup is gone, its items with it, and the words say what was picked.
  expect(picked).toContain('Picked: Banana');
  expect(picked).not.toContain('Apple');
});
