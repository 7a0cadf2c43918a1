import { freePort } from '@browsermcp/testkit';
import { expect, it } from 'vitest';
import { navigationErrorCode, pageWentAway, unknownKey } from '../src/engine/browser-errors.js';
import { useHarness } from './harness.js';

// Puppeteer's errors as they really come, each sorted by the one module that knows them.
const h = useHarness();

it('knows a page that went away, a failed navigation and an unknown key from what puppeteer throws', async () => {
  const context = await h.browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.goto(h.server.url('/index.html'));
    const button = (await page.$('button'))!;
    const cdp = await page.createCDPSession();
    await page.close();
    // By its type: a DevTools call on the closed page's session (puppeteer's TargetCloseError, named so).
    const closed = await cdp.send('Runtime.evaluate', { expression: '1' }).catch((err: unknown) => err);
    expect((closed as Error).name).toBe('TargetCloseError');
    expect(pageWentAway(closed)).toBe(true);
    // By its words, where puppeteer gives a plain Error: an element of the page that went away.
    const gone = await button.evaluate((el) => el.tagName).catch((err: unknown) => err);
    expect((gone as Error).name).toBe('Error');
    expect(pageWentAway(gone)).toBe(true);
    expect(navigationErrorCode(gone)).toBeUndefined();

    const other = await context.newPage();
    const refused = await other.goto(`http://127.0.0.1:${await freePort()}/`).catch((err: unknown) => err);
    expect(navigationErrorCode(refused)).toBe('ERR_CONNECTION_REFUSED');
    expect(pageWentAway(refused)).toBe(false);

    const key = await other.keyboard.press('NoSuchKey' as never).catch((err: unknown) => err);
    expect(unknownKey(key)).toBe(true);
    expect(pageWentAway(key)).toBe(false);

    const plain = new Error('something else');
    expect([pageWentAway(plain), navigationErrorCode(plain), unknownKey(plain)]).toEqual([false, undefined, false]);
  } finally {
    await context.close();
  }
});
