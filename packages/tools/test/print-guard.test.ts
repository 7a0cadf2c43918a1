import { expect, it } from 'vitest';
import { call, useHarness } from './harness.js';

const h = useHarness();

it("a page's window.print() opens no print dialog (it would stop the page): nothing is printed, the page goes on, and the agent is told", async () => {
  const session = await h.session();
  await call(session, 'browser_navigate', { url: h.server.url('/prints-itself.html') });
  // It prints itself 100 ms after load: told in the next answer.
  await expect
    .poll(() => call(session, 'browser_snapshot'), { timeout: 5000 })
    .toContain(
      "The page in tab 0 called window.print(): nothing was printed, since Chrome's print dialog would stop the page until someone closed it. For a PDF of the page, use browser_pdf_save.",
    );
  // Told once; a click that prints again is told again, and the page's script went on past its print.
  expect(await call(session, 'browser_snapshot')).not.toContain('called window.print()');
  const clicked = await call(session, 'browser_click', { target: '#again' });
  expect(clicked).toContain('called window.print()');
  expect(await (await session.currentTab()).page.evaluate(() => document.getElementById('after')!.textContent)).toBe('Printed again, and the page went on');
});
