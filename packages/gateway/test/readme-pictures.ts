import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EXTENSION_ID } from '@browsermcp/daemon';
import { captureScreen, findBlock, screenPng, type PageConnection } from '@browsermcp/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, text } from './helpers.js';
import type { ExtensionBackend } from '../src/index.js';
import { PERSON_RIG_KEYS, READABILITY_PROBLEMS, startPersonRig, type PersonRig } from './scenarios/person-rig.js';

// The pictures in apps/extension/README.md and the root README, made from the built extension in a headed Chromium
// (the person rig of the extension scenarios): `npx -y pnpm@12.4.2 --filter @browsermcp/gateway pictures`. Not part
// of `test` (vitest.config.ts includes *.test.ts only): it writes files into the repository. Each picture is taken by
// Page.captureScreenshot on that page's own target, with its viewport set to the size a person sees it at.

const DOCS = fileURLToPath(new URL('../../../apps/extension/docs/', import.meta.url));
/** Device pixels per CSS pixel: 1, so that a README shows each picture at the size a person sees it (and small). */
const SCALE = 1;
/** The toolbar popup's width (popup.html's body). */
const POPUP_WIDTH = 320;

type Box = { x: number; y: number; width: number; height: number };

let rig: PersonRig;
/** The two agents the pictures show, connected for the whole run. */
let researcher: Client;
let booker: Client;
const RESEARCHER = 'Research assistant';
const BOOKER = 'Travel booker';
const RECONCILER = 'Quarterly expense report reconciliation assistant';

beforeAll(async () => {
  await mkdir(DOCS, { recursive: true });
  rig = await startPersonRig();
}, 60_000);
afterAll(async () => {
  for (const client of [researcher, booker]) {
    await (client?.transport as StreamableHTTPClientTransport | undefined)?.terminateSession().catch(() => undefined);
    await client?.close();
  }
  await rig?.close();
});

/**
 * Lays the page out `width` CSS pixels wide, then writes `name` (a PNG in apps/extension/docs) of the box `region`
 * evaluates to in the page, and gives the page its own size back.
 */
async function picture(page: PageConnection, name: string, width: number, region: string): Promise<void> {
  await page.send('Emulation.setDeviceMetricsOverride', { width, height: 900, deviceScaleFactor: SCALE, mobile: false });
  try {
    await nextFrames(page);
    // Every picture reads well at the size the person sees it: no sideways scroll, no text a few letters wide.
    expect(await page.evaluate(READABILITY_PROBLEMS), name).toEqual([]);
    const box = await page.evaluate<Box>(region);
    const clip = { x: Math.floor(box.x), y: Math.floor(box.y), width: Math.ceil(box.width), height: Math.ceil(box.height), scale: 1 };
    const { data } = await page.send<{ data: string }>('Page.captureScreenshot', { format: 'png', clip });
    await writeFile(join(DOCS, name), Buffer.from(data, 'base64'));
  } finally {
    await page.send('Emulation.clearDeviceMetricsOverride');
    // Laid out at its own size again before the person clicks in it.
    await nextFrames(page);
  }
}

/** The grey of Chrome's notification cards (Chromium 150's message center, light theme). */
const NOTIFICATION_GREY = [233, 233, 232];

/**
 * Writes `name`: Chrome's notification cards as they stand on the person's screen (the bottom right of the display,
 * read with xwd), once `count` of them show.
 */
async function notificationsPicture(name: string, count: number): Promise<void> {
  const display = rig.browser.display!;
  for (const end = Date.now() + 15_000; ; ) {
    const screen = await captureScreen(display);
    const corner = { left: Math.floor(screen.width / 2), top: Math.floor(screen.height / 4), right: screen.width - 1, bottom: screen.height - 1 };
    // Cards some 350 px wide, a few pixels apart.
    const box = findBlock(screen, NOTIFICATION_GREY, corner, 300, 2, 16);
    const cards = box ? countBlocks(screen, box) : 0;
    if (box && cards >= count) {
      const margin = {
        left: box.left - 6,
        top: box.top - 6,
        right: Math.min(screen.width - 1, box.right + 6),
        bottom: Math.min(screen.height - 1, box.bottom + 6),
      };
      await writeFile(join(DOCS, name), screenPng(screen, margin));
      return;
    }
    if (Date.now() > end) throw new Error(`${count} notification cards did not show within 15 s (saw ${cards})`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** How many cards stand in `box`: runs of rows with the cards' grey at its left edge. */
function countBlocks(screen: Awaited<ReturnType<typeof captureScreen>>, box: { left: number; top: number; bottom: number }): number {
  let cards = 0;
  let inCard = false;
  for (let y = box.top; y <= box.bottom; y++) {
    const grey = screen.rgb(box.left + 2, y).every((v, i) => Math.abs(v - NOTIFICATION_GREY[i]!) <= 2);
    if (grey && !inCard) cards++;
    inCard = grey;
  }
  return cards;
}

/** Two frames: a new layout is painted. */
const nextFrames = (page: PageConnection) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

/** The popup's whole height at its own width. */
const POPUP_BOX = `() => ({ x: 0, y: 0, width: ${POPUP_WIDTH}, height: document.querySelector('main').getBoundingClientRect().bottom })`;

/** The popup's row of the agent named `name`: a function source for clickAsPerson. */
const agentButton = (name: string, button: string) =>
  `() => Array.from(document.querySelectorAll('li.agent')).find((li) => li.textContent?.includes(${JSON.stringify(name)}))?.querySelector(${JSON.stringify(button)})`;

describe('the extension README’s pictures', () => {
  it('pairing.png: the popup of a browser not paired yet, with the code the gateway printed pasted in', async () => {
    const backend = rig.gw.backend as ExtensionBackend;
    await rig.control.evaluate(() =>
      (globalThis as unknown as { chrome: { storage: { local: { remove(k: string): Promise<void> } } } }).chrome.storage.local.remove('pairingCode'),
    );
    await expect.poll(() => backend.browserConnected()).toBe(false);
    const popup = await rig.openPopup();
    try {
      await popup.page.waitFor(() => !(document.getElementById('pair-form') as HTMLElement).hidden);
      await rig.clickAsPerson(popup.page, `() => document.getElementById('pair-code')`);
      await popup.page.send('Input.insertText', { text: backend.pairingCode });
      await picture(popup.page, 'pairing.png', POPUP_WIDTH, POPUP_BOX);
      await rig.clickAsPerson(popup.page, `() => document.querySelector('#pair-form button[type=submit]')`);
      await expect.poll(() => backend.browserConnected(), { timeout: 15_000 }).toBe(true);
    } finally {
      await popup.close();
    }
  });

  it('approval-pending.png: a new agent waits in the popup, with who it is and what its first call wants', async () => {
    const { server } = rig;
    researcher = await connectClient(rig.gw, RESEARCHER);
    await researcher.callTool({ name: 'browser_navigate', arguments: { url: server.url('/links.html') } });
    await researcher.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    await researcher.callTool({ name: 'browser_click', arguments: { target: '#counter' } });
    await rig.setStorage({ askBeforeNewAgents: true, allowedAgents: [] });
    booker = await connectClient(rig.gw, BOOKER, { key: PERSON_RIG_KEYS[1] });
    const waiting = booker.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } }, undefined, { timeout: 60_000 });
    // A second one, with a long name, waits too: both rows, and both notifications, read whole.
    const reconciler = await connectClient(rig.gw, RECONCILER, { key: PERSON_RIG_KEYS[1] });
    const alsoWaiting = reconciler.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html?month=2026-11') } }, undefined, {
      timeout: 60_000,
    });
    await notificationsPicture('notifications.png', 2);
    const popup = await rig.openPopup();
    await popup.page.waitFor(() => document.querySelectorAll('li.agent.pending').length === 2);
    await picture(popup.page, 'approval-pending.png', POPUP_WIDTH, POPUP_BOX);
    // Always allow, as the person: the options page lists the agent afterwards. The other one is denied.
    await rig.clickAsPerson(popup.page, agentButton(BOOKER, '.decide-always'));
    expect(text(await waiting)).toContain('- Page Title: Form');
    // The popup lays itself out again once the answer is in: the next click goes where the row is then.
    await popup.page.waitFor(
      (name: string) => !Array.from(document.querySelectorAll('li.agent.pending')).some((li) => li.textContent?.includes(name)),
      [BOOKER],
    );
    await rig.clickAsPerson(popup.page, agentButton(RECONCILER, '.decide-deny'));
    expect(text(await alsoWaiting)).toContain('The person denied');
    await (reconciler.transport as StreamableHTTPClientTransport).terminateSession().catch(() => undefined);
    await reconciler.close();
    await popup.close();
    await rig.setStorage({ askBeforeNewAgents: false });
  });

  it('popup-connected.png: the popup while two agents work, one with its activity unfolded', async () => {
    const popup = await rig.openPopup();
    await popup.page.waitFor(() => document.getElementById('state-text')?.textContent === 'Connected' && document.querySelectorAll('li.agent').length === 2);
    await rig.clickAsPerson(popup.page, agentButton(RESEARCHER, 'details.activity summary'));
    await popup.page.waitFor(
      (name: string) => {
        const li = Array.from(document.querySelectorAll('li.agent')).find((l) => l.textContent?.includes(name));
        return (li?.querySelector('details.activity') as HTMLDetailsElement | null)?.open;
      },
      [RESEARCHER],
    );
    await picture(popup.page, 'popup-connected.png', POPUP_WIDTH, POPUP_BOX);
    await popup.close();
  });

  it('handoff-popup.png and handoff-banner.png: an agent hands the person a step; the popup says so, the tab shows the banner', async () => {
    const { server } = rig;
    const url = server.url('/form.html?handoff=1');
    await booker.callTool({ name: 'browser_navigate', arguments: { url } });
    const asked = booker.callTool(
      { name: 'browser_request_user', arguments: { message: 'Please sign up with your own email address, then press Done' } },
      undefined,
      { timeout: 60_000 },
    );
    const popup = await rig.openPopup();
    await popup.page.waitFor(() => document.querySelector('li.agent.asking')?.textContent?.includes('asks you:'));
    await picture(popup.page, 'handoff-popup.png', POPUP_WIDTH, POPUP_BOX);
    // A click on the agent shows its tab, as the person would; the popup goes away as a real one does.
    await rig.clickAsPerson(popup.page, `() => document.querySelector('li.agent.asking .agent-show')`);
    await expect.poll(rig.activeUrls).toEqual([url]);
    await popup.close({ backToPersonTab: false });
    const tab = (await rig.browser.tabWith(url))!;
    const page = await rig.browser.page(tab.id);
    try {
      await page.waitFor(() => document.getElementById('browsermcp-ask')?.shadowRoot?.getElementById('who')?.textContent);
      // The banner and the top of the page it moved down.
      await picture(
        page,
        'handoff-banner.png',
        760,
        `() => ({ x: 0, y: 0, width: 760, height: document.querySelector('fieldset').getBoundingClientRect().top })`,
      );
      await rig.clickAsPerson(page, `() => document.getElementById('browsermcp-ask')?.shadowRoot?.getElementById('done')`);
    } finally {
      await page.close();
    }
    expect(text(await asked)).toContain('The person pressed Done');
    await rig.backToPersonTab();
  });

  it('options-page.png: the options page, with an agent always allowed and a site off limits', async () => {
    // Asking before a new agent is on, as after install.
    await rig.setStorage({ offLimits: 'mybank.com', askBeforeNewAgents: true });
    const tab = await rig.browser.open(`chrome-extension://${EXTENSION_ID}/options.html`);
    const page = await rig.browser.page(tab.id);
    try {
      await page.waitFor(
        () => document.querySelector('li.allowed-agent') && (document.getElementById('off-limits') as HTMLTextAreaElement).value === 'mybank.com',
      );
      await picture(
        page,
        'options-page.png',
        640,
        `() => ({ x: 0, y: 0, width: 640, height: document.querySelector('main').getBoundingClientRect().bottom + 24 })`,
      );
    } finally {
      await page.close();
      await rig.browser.close(tab.id);
      await rig.backToPersonTab();
    }
  });

  it('blocked-page.png: what an agent’s tab shows when its page heads for a site the person put off limits', async () => {
    const { server } = rig;
    await rig.setStorage({ offLimits: 'localhost' });
    await researcher.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
    await researcher.callTool({
      name: 'browser_evaluate',
      arguments: { function: `() => { location.href = ${JSON.stringify(server.crossUrl('/form.html'))}; }` },
    });
    // An empty page with no origin the extension wrote the words into (never one of its own pages).
    await expect.poll(async () => (await rig.browser.tabs()).some((t) => t.title === 'Blocked by browsermcp')).toBe(true);
    const tab = (await rig.browser.tabs()).find((t) => t.title === 'Blocked by browsermcp')!;
    const page = await rig.browser.page(tab.id);
    try {
      await page.waitFor(() => document.querySelector('strong')?.textContent === 'localhost');
      await picture(
        page,
        'blocked-page.png',
        640,
        `() => ({ x: 0, y: 0, width: 640, height: document.querySelector('main').getBoundingClientRect().bottom + 24 })`,
      );
    } finally {
      await page.close();
      await rig.setStorage({ offLimits: '' });
    }
  });
});
