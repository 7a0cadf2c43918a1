import { picture, sameColour, type Picture } from '@browsermcp/testkit';
import { expect, it } from 'vitest';
import { callTool, type ToolSession } from '../src/index.js';
import { call, useHarness } from './harness.js';

const h = useHarness();
const SECRET = 'tok-3f9a-secret-7781';
/** The colour a field holding a secret is painted over with (injected/mask.ts). */
const MASK = [31, 35, 40];

async function screenshotOf(session: ToolSession, args: Record<string, unknown>): Promise<Picture> {
  const result = await callTool(session, 'browser_take_screenshot', args);
  const image = result.content.find((c) => c.type === 'image');
  expect(image, JSON.stringify(result.content[0])).toBeDefined();
  return picture(Buffer.from((image as { data: string }).data, 'base64'));
}

it('a field holding a secret (--secrets) is painted over in screenshots, and given back as it was', async () => {
  const session = await h.session({ secrets: { API_TOKEN: SECRET } });
  await call(session, 'browser_navigate', { url: h.server.url('/form.html') });
  const { page } = await session.currentTab();
  // The person (or the page) put the secret in one field, its base64 in another; a third holds something else.
  await page.evaluate((secret: string) => {
    const field = document.getElementById('name') as HTMLInputElement;
    field.value = secret;
    field.style.cssText = 'width: 300px; height: 40px; font-size: 24px; background: #fff';
    (document.querySelector('textarea') as HTMLTextAreaElement).value = `header.${btoa(secret)}.sig`;
    const email = document.querySelector('input[type=email]') as HTMLInputElement;
    email.value = 'ada@example.test';
    email.style.cssText = 'width: 300px; height: 40px; background: #fff';
  }, SECRET);
  const masked = await screenshotOf(session, { target: '#name' });
  for (const [fx, fy] of [
    [0.2, 0.5],
    [0.5, 0.5],
    [0.8, 0.5],
  ] as const) {
    expect(masked.at(fx, fy), `the secret field at ${fx},${fy}`).toSatisfy((rgb: number[]) => sameColour(rgb, MASK, 12));
  }
  expect((await screenshotOf(session, { target: 'textarea' })).at(0.5, 0.5), 'the field holding its base64').toSatisfy((rgb: number[]) =>
    sameColour(rgb, MASK, 12),
  );
  // A field without a secret shows as it is: white with its text.
  expect((await screenshotOf(session, { target: 'input[type=email]' })).at(0.95, 0.5)).toSatisfy((rgb: number[]) => sameColour(rgb, [255, 255, 255], 12));
  // The whole viewport too; then the page is as it was: the fields' values and styles untouched.
  const viewport = await screenshotOf(session, {});
  const box = await page.evaluate(() => {
    const r = document.getElementById('name')!.getBoundingClientRect();
    return { x: (r.left + r.width / 2) / innerWidth, y: (r.top + r.height / 2) / innerHeight };
  });
  expect(viewport.at(box.x, box.y)).toSatisfy((rgb: number[]) => sameColour(rgb, MASK, 12));
  expect(
    await page.evaluate(() => [(document.getElementById('name') as HTMLInputElement).value, document.getElementById('name')!.getAttribute('style')]),
  ).toEqual([SECRET, 'width: 300px; height: 40px; font-size: 24px; background: rgb(255, 255, 255);']);
  // Without --secrets nothing is painted over.
  const plain = await h.session();
  await call(plain, 'browser_navigate', { url: h.server.url('/form.html') });
  await (await plain.currentTab()).page.evaluate((secret: string) => {
    const field = document.getElementById('name') as HTMLInputElement;
    field.value = secret;
    field.style.cssText = 'width: 300px; height: 40px; background: #fff';
  }, SECRET);
  expect((await screenshotOf(plain, { target: '#name' })).at(0.95, 0.5)).toSatisfy((rgb: number[]) => sameColour(rgb, [255, 255, 255], 12));
});
