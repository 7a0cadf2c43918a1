import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFixtureServer, startForwardProxy, type FixtureServer, type ForwardProxy } from '@browsermcp/testkit';
import { evaluated, startLocal, type LocalRig } from '../helpers/local.js';

let rig: LocalRig;
let server: FixtureServer;
let proxy: ForwardProxy;

beforeAll(async () => {
  server = await startFixtureServer();
  proxy = await startForwardProxy();
  rig = await startLocal();
});

afterAll(async () => {
  await rig?.close();
  await proxy?.close();
  await server?.close();
});

function refOf(snapshot: string, text: string): string {
  const line = snapshot.split('\n').find((l) => l.includes(text) && l.includes('[ref='));
  const ref = line && /\[ref=([^\]]+)\]/.exec(line)?.[1];
  if (!ref) throw new Error(`no ref for "${text}" in:\n${snapshot}`);
  return ref;
}

it('creates, lists, switches and closes named contexts', async () => {
  await rig.router.openSession('ctx');
  await rig.text('ctx', 'browser_navigate', { url: server.url('/item/1') });
  expect(await rig.text('ctx', 'browser_context_create', { name: 'uk' })).toContain('Created context "uk"');
  await rig.text('ctx', 'browser_navigate', { url: server.url('/item/2') });

  const listed = await rig.text('ctx', 'browser_context_list');
  expect(listed).toContain(`- default: 1 page, ${server.url('/item/1')}`);
  expect(listed).toContain(`- uk (active): 1 page, ${server.url('/item/2')}`);

  await rig.text('ctx', 'browser_context_switch', { name: 'default' });
  expect(await rig.text('ctx', 'browser_snapshot')).toContain('/item/1');
  await rig.text('ctx', 'browser_context_switch', { name: 'uk' });
  expect(await rig.text('ctx', 'browser_snapshot')).toContain('/item/2');

  const browser = await rig.executor.browser.get();
  const contexts = browser.browserContexts().length;
  await rig.text('ctx', 'browser_context_close', { name: 'uk' });
  expect(browser.browserContexts()).toHaveLength(contexts - 1);
  expect((await browser.pages()).map((p) => p.url())).not.toContain(server.url('/item/2'));
  const after = await rig.text('ctx', 'browser_context_list');
  expect(after).toContain('- default (active)');
  expect(after).not.toContain('uk');
  await rig.router.closeSession('ctx');
});

it('prefixes refs of a named context, accepts them there and refuses them elsewhere', async () => {
  await rig.router.openSession('refs');
  await rig.text('refs', 'browser_context_create', { name: 'uk' });
  const snapshot = await rig.text('refs', 'browser_navigate', { url: server.url('/form.html') });
  const agree = refOf(snapshot, 'I agree');
  expect(agree).toMatch(/^uk:e\d+$/);

  await rig.text('refs', 'browser_click', { target: agree, element: 'I agree checkbox' });
  const checked = await rig.text('refs', 'browser_evaluate', { function: '() => document.querySelector("[name=agree]").checked' });
  expect(evaluated(checked)).toBe(true);

  await rig.text('refs', 'browser_context_switch', { name: 'default' });
  await rig.text('refs', 'browser_navigate', { url: server.url('/form.html') });
  const refused = await rig.call('refs', 'browser_click', { target: agree, element: 'I agree checkbox' });
  expect(refused.isError).toBe(true);
  expect(refused.content[0]!.text).toContain(`ref ${agree} belongs to context "uk"; switch to it with browser_context_switch first`);
  // The default context's own checkbox was not touched.
  expect(evaluated(await rig.text('refs', 'browser_evaluate', { function: '() => document.querySelector("[name=agree]").checked' }))).toBe(false);
  await rig.router.closeSession('refs');
});

it('sends a context’s traffic through its proxy and no other context’s', async () => {
  await rig.router.openSession('proxied');
  // Chromium never proxies loopback unless the bypass list subtracts it with <-loopback>.
  await rig.text('proxied', 'browser_context_create', { name: 'viaproxy', proxy: { server: proxy.url, bypass: '<-loopback>' } });
  const viaProxy = await rig.text('proxied', 'browser_navigate', { url: server.url('/item/41') });
  expect(viaProxy).toContain('Page Title: Item 41');
  expect(proxy.seen).toContain(server.url('/item/41'));
  expect(await rig.text('proxied', 'browser_context_list')).toContain(`proxy ${proxy.url}`);

  await rig.text('proxied', 'browser_context_create', { name: 'direct' });
  await rig.text('proxied', 'browser_navigate', { url: server.url('/item/42') });
  await rig.text('proxied', 'browser_context_switch', { name: 'default' });
  await rig.text('proxied', 'browser_navigate', { url: server.url('/item/43') });
  expect(server.requests).toEqual(expect.arrayContaining(['/item/42', '/item/43']));
  expect(proxy.seen.filter((u) => /\/item\/4[23]$/.test(u))).toEqual([]);
  await rig.router.closeSession('proxied');
});

it('starts a context from a storage state file with its cookies and localStorage', async () => {
  const file = join(rig.outputDir, 'state.json');
  await writeFile(
    file,
    JSON.stringify({
      cookies: [{ name: 'sid', value: 'from-state', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' }],
      origins: [{ origin: server.origin, localStorage: [{ name: 'theme', value: 'dark' }] }],
    }),
  );
  await rig.router.openSession('state');
  await rig.text('state', 'browser_context_create', { name: 'saved', storageState: file });
  expect(await rig.text('state', 'browser_navigate', { url: server.url('/echo-cookie') })).toContain('sid=from-state');
  await rig.text('state', 'browser_navigate', { url: server.url('/index.html') });
  expect(evaluated(await rig.text('state', 'browser_evaluate', { function: '() => localStorage.getItem("theme")' }))).toBe('dark');

  // The session's default context did not get them.
  await rig.text('state', 'browser_context_switch', { name: 'default' });
  expect(await rig.text('state', 'browser_navigate', { url: server.url('/echo-cookie') })).not.toContain('sid=');
  await rig.router.closeSession('state');
});

it('refuses a storage state file outside the allowed roots', async () => {
  await rig.router.openSession('badstate');
  const result = await rig.call('badstate', 'browser_context_create', { name: 'x', storageState: '/etc/passwd' });
  expect(result.isError).toBe(true);
  expect(result.content[0]!.text).toContain('outside the allowed file roots');
  await rig.router.closeSession('badstate');
});
