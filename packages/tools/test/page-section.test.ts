import { expect, it } from 'vitest';
import { call, useHarness } from './harness.js';

// An answer says where the page is when the agent does not know it yet: with every whole snapshot, after a tool that
// moves it (a navigation, another tab), with a snapshot it asks for, and when the URL or title changed; not again on
// each action on the same page, even one whose answer shows the whole page again.

const h = useHarness();

it('leaves out the page section when it reads as the last one shown, and gives it when the page moved or was asked for', async () => {
  const s = await h.session({ snapshotChanges: true });
  const url = h.server.url('/index.html');
  expect(await call(s, 'browser_navigate', { url })).toContain(`### Page\n- Page URL: ${url}\n- Page Title: Fixture home`);
  // A click on the same page: what changed, nothing about where it is.
  const clicked = await call(s, 'browser_click', { target: '#counter' });
  expect(clicked).toContain('button "Clicked 1 times"');
  expect(clicked).not.toContain('### Page');
  expect(await call(s, 'browser_evaluate', { function: '() => 1 + 1' })).not.toContain('### Page');
  // A click that redraws the whole page: the page again, still nothing about where it is (the same URL and title).
  await call(s, 'browser_evaluate', {
    function: `() => document.getElementById('counter').addEventListener('click', () => {
      document.body.innerHTML = '<h1>Redrawn</h1><ul>' + Array.from({ length: 9 }, (_, i) => '<li><button>New ' + i + '</button></li>').join('') + '</ul>';
    })`,
  });
  const redrawn = await call(s, 'browser_click', { target: '#counter' });
  expect(redrawn).toContain('### Snapshot\n```yaml\n- heading "Redrawn" [level=1]');
  expect(redrawn).not.toContain('### Page');
  // The title changed: the page section says so.
  const retitled = await call(s, 'browser_evaluate', { function: "() => { document.title = 'Renamed'; }" });
  expect(retitled).toContain('- Page Title: Renamed');
  // A navigation to the same page, and a whole snapshot, give it whatever was shown before.
  expect(await call(s, 'browser_navigate', { url })).toContain(`- Page URL: ${url}`);
  expect(await call(s, 'browser_snapshot', {})).toContain('- Page Title: Fixture home');
});

it('gives the page section in every answer with --snapshot-mode full, as before', async () => {
  const s = await h.session({ snapshotChanges: false });
  await call(s, 'browser_navigate', { url: h.server.url('/index.html') });
  expect(await call(s, 'browser_click', { target: '#counter' })).toContain('- Page Title: Fixture home');
  expect(await call(s, 'browser_evaluate', { function: '() => 1 + 1' })).toContain('- Page Title: Fixture home');
});
