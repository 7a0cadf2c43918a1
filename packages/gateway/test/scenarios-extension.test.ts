import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EXTENSION_ID } from '@browsermcp/daemon';
import { launchExtensionBrowser, openExtensionPage, startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExtensionBackend, RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway, text } from './helpers.js';
import { runScenarios, SCENARIO_FLAGS, type ModeRig } from './scenarios/scenarios.js';

// The shared scenarios in the person's own browser: the built extension in Chromium, through --extension.

const EXTENSION_DIR = join(dirname(createRequire(import.meta.url).resolve('@browsermcp/extension/package.json')), 'dist');

let gw: RunningHttpGateway;
let server: FixtureServer;
let browser: Browser;
/** The tab the person is looking at: agents must never take its place. */
let personTab: Page;

type Chrome = { chrome: { tabs: { query(q: object): Promise<Array<{ id: number; url?: string; active: boolean }>> } } };

beforeAll(async () => {
  [gw, server, browser] = await Promise.all([startGateway(['--extension', '--daemon-port', '0', ...SCENARIO_FLAGS]), startFixtureServer(), launchExtensionBrowser(EXTENSION_DIR)]);
  const options = await openExtensionPage(browser, EXTENSION_ID, 'options.html');
  await options.evaluate(
    (u) => (globalThis as unknown as { chrome: { storage: { local: { set(v: object): Promise<void> } } } }).chrome.storage.local.set({ daemonUrl: u, paused: false, askBeforeNewAgents: false }),
    (gw.backend as ExtensionBackend).extensionUrl,
  );
  for (let i = 0; i < 400 && !gw.backend.browserConnected(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!gw.backend.browserConnected()) throw new Error('the extension did not connect to the gateway');
  personTab = options;
  await personTab.bringToFront();
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await server?.close();
});

runScenarios('extension', (): ModeRig => ({
  mode: 'extension',
  server,
  client: (name, options) => connectClient(gw, name, options),
  async closeAsPerson(url) {
    const page = (await browser.pages()).find((p) => p.url() === url);
    if (!page) throw new Error(`no tab shows ${url}`);
    await page.close();
  },
  async lookAt(url) {
    const page = (await browser.pages()).find((p) => p.url() === url);
    if (!page) throw new Error(`no tab shows ${url}`);
    await page.bringToFront();
    return () => personTab.bringToFront();
  },
  async answerBanner(url, button) {
    // As the person: the badge and the popup say an agent asks something; a click on it shows the tab; they answer.
    const popup = await browser.newPage();
    await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
    await popup.waitForFunction(() => Array.from(document.querySelectorAll('li.agent.asking')).some((li) => li.textContent?.includes('asks you:')));
    await popup.click('li.agent.asking .agent-show');
    const page = (await browser.pages()).find((p) => p.url() === url);
    if (!page) throw new Error(`no tab shows ${url}`);
    await page.waitForSelector(`pierce/#${button}`);
    await page.click(`pierce/#${button}`);
    await popup.close();
    await personTab.bringToFront();
  },
}));

it('agent tabs open in the background: the tab the person looks at stays in front', async () => {
  const client = await connectClient(gw, 'Background agent');
  await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
  await client.callTool({ name: 'browser_tabs', arguments: { action: 'new', url: server.url('/form.html') } });
  await client.callTool({ name: 'browser_tabs', arguments: { action: 'select', index: 0 } });
  expect(text(await client.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('button "Click me"');
  const active = await personTab.evaluate(() => (globalThis as unknown as Chrome).chrome.tabs.query({ active: true }));
  expect(active.map((t) => t.url)).toEqual([`chrome-extension://${EXTENSION_ID}/options.html`]);
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
});

it('the person pauses browsermcp in the popup: agents are told so, and carry on after Connect', async () => {
  const client = await connectClient(gw, 'Paused agent');
  expect(text(await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } }))).toContain('Fixture home');
  const popup = await browser.newPage();
  await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
  await popup.waitForFunction(() => document.getElementById('toggle')?.textContent === 'Disconnect');
  await popup.click('#toggle');
  await popup.waitForFunction(() => document.getElementById('toggle')?.textContent === 'Connect');
  await expect
    .poll(async () => text(await client.callTool({ name: 'browser_snapshot', arguments: {} })), { timeout: 10_000 })
    .toContain('the person paused browsermcp in their browser (the Disconnect button in its popup); ask them to press Connect there');
  await popup.click('#toggle');
  await expect.poll(async () => text(await client.callTool({ name: 'browser_snapshot', arguments: {} })), { timeout: 20_000 }).toContain('button "Click me"');
  await popup.close();
  await personTab.bringToFront();
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
});

it('the popup lists each agent with its last action, shows its tab, and Stop ends it: its tabs close, its agent is told', async () => {
  const client = await connectClient(gw, 'Agent to stop');
  const own = server.url('/index.html?agent=stop');
  await client.callTool({ name: 'browser_navigate', arguments: { url: own } });
  await client.callTool({ name: 'browser_click', arguments: { target: '#counter' } });
  const popup = await browser.newPage();
  await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
  const row = 'li.agent:has(strong)';
  await popup.waitForFunction(() => Array.from(document.querySelectorAll('li.agent')).some((li) => li.textContent?.includes('Agent to stop')));
  const line = await popup.$$eval(row, (rows) => rows.map((r) => r.textContent ?? '').find((t) => t.includes('Agent to stop')) ?? '');
  expect(line).toMatch(/Agent to stop1 tab · clicked on 127\.0\.0\.1:\d+, \d+ s ago/);
  // A click on the agent shows its tab to the person (their choice: agents never do this themselves).
  await popup.evaluate(() => {
    const li = Array.from(document.querySelectorAll('li.agent')).find((l) => l.textContent?.includes('Agent to stop'));
    (li?.querySelector('.agent-show') as HTMLButtonElement).click();
  });
  await expect.poll(async () => (await personTab.evaluate(() => (globalThis as unknown as Chrome).chrome.tabs.query({ active: true }))).map((t) => t.url)).toEqual([own]);
  await popup.evaluate(() => {
    const li = Array.from(document.querySelectorAll('li.agent')).find((l) => l.textContent?.includes('Agent to stop'));
    (li?.querySelector('.agent-stop') as HTMLButtonElement).click();
  });
  await expect.poll(async () => (await browser.pages()).some((p) => p.url() === own)).toBe(false);
  const after = await client.callTool({ name: 'browser_snapshot', arguments: {} });
  expect(after.isError).toBe(true);
  expect(text(after)).toContain('the person stopped this agent in their browser (the Stop button in the browsermcp popup)');
  await popup.close();
  await personTab.bringToFront();
  await client.close();
});

it('sites the person put off limits in the options page: refused to agents, and a page that goes there is sent away', async () => {
  const options = await openExtensionPage(browser, EXTENSION_ID, 'options.html');
  // As the person does it: type the site, press Save sites.
  await options.type('#off-limits', 'localhost\n');
  await options.click('#limits-form button[type=submit]');
  await options.waitForSelector('#limits-saved:not([hidden])');
  const client = await connectClient(gw, 'Curious agent');
  try {
    const refused = await client.callTool({ name: 'browser_navigate', arguments: { url: server.crossUrl('/form.html') } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('The person has put localhost off limits for agents (browsermcp options page)');
    await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    // The page itself heads there: the agent never sees it, and hears why.
    await client.callTool({ name: 'browser_evaluate', arguments: { function: `() => { location.href = ${JSON.stringify(server.crossUrl('/form.html'))}; }` } });
    await expect
      .poll(async () => text(await client.callTool({ name: 'browser_snapshot', arguments: {} })), { timeout: 10_000 })
      .toContain(`A page tried to open ${server.crossUrl('/form.html')}, and the tab was sent to about:blank instead. The person has put localhost off limits`);
    expect((await browser.pages()).some((p) => p.url() === server.crossUrl('/form.html'))).toBe(false);
    // Nor does any request of the agent's pages reach it (the same guard as the gateway's origin lists).
    await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    const fetched = await client.callTool({
      name: 'browser_evaluate',
      arguments: { function: `() => fetch(${JSON.stringify(server.crossUrl('/item/from-agent-page'))}, { mode: 'no-cors' }).then(() => 'reached', () => 'refused')` },
    });
    expect(text(fetched)).toContain('"refused"');
    expect(text(fetched)).toContain(`The page's request for ${server.crossUrl('/item/from-agent-page')} was refused: The person has put localhost off limits`);
    expect(server.visits).not.toContain(`${new URL(server.crossOrigin).host}/item/from-agent-page`);
  } finally {
    await options.evaluate(() => (globalThis as unknown as { chrome: { storage: { local: { set(v: object): Promise<void> } } } }).chrome.storage.local.set({ offLimits: '' }));
    await options.close();
    await personTab.bringToFront();
    await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
    await client.close();
  }
});

it('the person shares one of their tabs with an agent from the popup: it joins the agent’s tabs and the agent is told', async () => {
  const client = await connectClient(gw, 'Helper agent');
  try {
    await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=helper') } });
    const mine = await browser.newPage();
    await mine.goto(server.url('/links.html'));
    await mine.bringToFront();
    const popup = await browser.newPage();
    await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
    await popup.waitForFunction(() => !(document.getElementById('share') as HTMLElement).hidden);
    expect(await popup.$eval('#share-title', (e) => e.getAttribute('title'))).toBe(server.url('/links.html'));
    const helper = await popup.$$eval('#share-agent option', (options) => options.find((o) => o.textContent === 'Helper agent')?.getAttribute('value'));
    await popup.select('#share-agent', helper!);
    await popup.click('#share-button');
    // Shared: the popup renders the answer, and that tab is no longer one to share.
    await popup.waitForFunction(() => (document.getElementById('share') as HTMLElement).hidden);
    await popup.close();
    const tabs = text(await client.callTool({ name: 'browser_tabs', arguments: { action: 'list' } }));
    expect(tabs).toContain(`The person shared a tab with you: Links (${server.url('/links.html')})`);
    expect(tabs).toMatch(/- 0: \(current\) \[Fixture home\]/);
    expect(tabs).toMatch(/- 1: \[Links\]/);
    expect(text(await client.callTool({ name: 'browser_tabs', arguments: { action: 'select', index: 1 } }))).toContain('- Page Title: Links');
  } finally {
    await personTab.bringToFront();
    await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
    await client.close();
  }
});

describe('a new agent must be allowed by the person', () => {
  const setAsk = (ask: boolean) =>
    personTab.evaluate((a) => (globalThis as unknown as { chrome: { storage: { local: { set(v: object): Promise<void> } } } }).chrome.storage.local.set({ askBeforeNewAgents: a, allowedAgents: [] }), ask);

  /** Presses one of a pending agent's buttons in the popup, as the person would. */
  async function answer(agent: string, button: 'once' | 'always' | 'deny'): Promise<void> {
    const popup = await browser.newPage();
    await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
    await popup.waitForFunction(
      (name) => Array.from(document.querySelectorAll('li.agent.pending')).some((li) => li.textContent?.includes(name) && li.textContent.includes('wants to use this browser')),
      {},
      agent,
    );
    await popup.evaluate(
      (name, b) => {
        const li = Array.from(document.querySelectorAll('li.agent.pending')).find((l) => l.textContent?.includes(name));
        (li?.querySelector(`.decide-${b}`) as HTMLButtonElement).click();
      },
      agent,
      button,
    );
    await popup.waitForFunction((name) => !Array.from(document.querySelectorAll('li.agent.pending')).some((li) => li.textContent?.includes(name)), {}, agent);
    await popup.close();
    await personTab.bringToFront();
  }

  it('holds its first call (with progress saying why) until Allow; Deny refuses it; Always allow is remembered', async () => {
    await setAsk(true);
    try {
      // Allow once: the waiting call goes on, with progress notifications that say what it waits for.
      const first = await connectClient(gw, 'Newcomer');
      const progress: string[] = [];
      const call = first.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=new') } }, undefined, {
        onprogress: (p) => progress.push(p.message ?? ''),
        timeout: 60_000,
      });
      // The client hears, every 10 s, that the call waits for the person, and what for.
      await expect.poll(() => progress.length, { timeout: 25_000, interval: 500 }).toBeGreaterThan(0);
      expect(progress[0]).toMatch(/^browser_navigate is still running \(\d+ s\): Waiting for the person to allow "Newcomer" in the browsermcp popup/);
      await answer('Newcomer', 'once');
      expect(text(await call)).toContain('- Page Title: Fixture home');
      await (first.transport as StreamableHTTPClientTransport).terminateSession();

      // Deny: the call answers at once that the person said no, and so does the next.
      const denied = await connectClient(gw, 'Pushy agent');
      const refused = denied.callTool({ name: 'browser_snapshot', arguments: {} });
      await answer('Pushy agent', 'deny');
      expect(text(await refused)).toContain('The person denied "Pushy agent" the use of their browser');
      expect(text(await denied.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('The person denied');
      await (denied.transport as StreamableHTTPClientTransport).terminateSession();

      // Always allow: the next session of that agent is not asked again.
      const trusted = await connectClient(gw, 'Trusted agent');
      const waiting = trusted.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=trusted') } });
      await answer('Trusted agent', 'always');
      expect(text(await waiting)).toContain('Fixture home');
      await (trusted.transport as StreamableHTTPClientTransport).terminateSession();
      const again = await connectClient(gw, 'Trusted agent');
      expect(text(await again.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?agent=trusted2') } }))).toContain('Fixture home');
      await (again.transport as StreamableHTTPClientTransport).terminateSession();
    } finally {
      await setAsk(false);
    }
  });
});
