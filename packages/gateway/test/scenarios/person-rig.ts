import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EXTENSION_ID } from '@browsermcp/daemon';
import {
  captureScreen,
  clickScreen,
  findBlock,
  launchPersonBrowser,
  startFixtureServer,
  type FixtureServer,
  type PageConnection,
  type PersonBrowser,
} from '@browsermcp/testkit';
import type { ExtensionBackend, RunningHttpGateway } from '../../src/index.js';
import { connectClient, startGateway } from '../helpers.js';
import { SCENARIO_FLAGS, type ModeRig } from './scenarios.js';

// The person's own browser for the extension scenarios: the built extension in a Chromium started as a person starts
// it (headed under Xvfb, unless asked for headless), with the person's own tab in front of the focused window and NO
// browser-wide DevTools client attached (one would change how Chrome treats the agents' background tabs). The test
// acts as the person through the DevTools HTTP endpoints and one page target at a time.

/** The gateway's API keys: clients use the first unless a test says otherwise. */
export const PERSON_RIG_KEYS = ['person-rig-key-one-0123456789abcdef', 'person-rig-key-two-0123456789abcdef'] as const;
/** The label of the second key in the gateway's --api-key-file. */
export const PERSON_RIG_KEY_LABEL = 'travel-desk';

function keyFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'bmcp-person-keys-')), 'keys');
  // The second key with a label, as the person sees it beside the key's fingerprint.
  writeFileSync(file, `${PERSON_RIG_KEYS[0]}\n${PERSON_RIG_KEY_LABEL}=${PERSON_RIG_KEYS[1]}\n`);
  return file;
}

export const EXTENSION_DIR = join(dirname(createRequire(import.meta.url).resolve('@browsermcp/extension/package.json')), 'dist');

export interface PersonRig {
  gw: RunningHttpGateway;
  /** The gateway's log lines (info and up), as parsed JSON. */
  logs: Array<Record<string, unknown>>;
  server: FixtureServer;
  browser: PersonBrowser;
  /** The tab the person reads, in front: agents must never take its place. */
  personTabId: string;
  personUrl: string;
  /** The extension's options page, open in a background tab: chrome.* calls as the extension itself would make them. */
  control: PageConnection;
  /** The URLs of the tabs in front of their windows, as the extension sees them. */
  activeUrls(): Promise<Array<string | undefined>>;
  /** Brings the person's own tab back to front, as they would after looking elsewhere. */
  backToPersonTab(): Promise<void>;
  /** Opens the toolbar popup (as a tab in front, as tests have no toolbar to click), with a connection to it. */
  openPopup(): Promise<{ page: PageConnection; close(options?: { backToPersonTab?: boolean }): Promise<void> }>;
  /** Clicks the element `find()` returns in a tab with a real (trusted) mouse click, as the person would. */
  clickAsPerson(page: PageConnection, find: string): Promise<void>;
  /**
   * Presses Cancel on Chrome's "<extension> started debugging this browser" bar of the tab in front, with the X
   * pointer as the person does (headed only). Throws when the bar does not show within 10 s or stays after the click.
   */
  pressCancelOnDebuggingBar(): Promise<void>;
  /** Sets the extension's settings (chrome.storage.local), as its options page and popup store them. */
  setStorage(values: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

/**
 * What makes an extension page hard to read at its real size, as a function source for PageConnection.evaluate: the
 * page wider than its window (a sideways scroll), or a text squeezed into a column a few letters wide (a name
 * wrapping "Tra / vel / bo / oke / r"). Empty when it reads well.
 */
export const READABILITY_PROBLEMS = `() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) problems.push('the page is ' + root.scrollWidth + ' px wide in a ' + root.clientWidth + ' px window');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (text.length < 12 || !node.parentElement || node.parentElement.closest('[hidden], script, style')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const lines = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    if (lines > 1 && text.length / lines < 12) problems.push('"' + text.slice(0, 40) + '" wraps to ' + lines + ' lines of ' + Math.round(text.length / lines) + ' characters');
  }
  return problems;
}`;

export type ChromeTabs = { chrome: { tabs: { query(q: object): Promise<Array<{ id: number; url?: string; active: boolean; groupId?: number }>> } } };
export type StorageWindow = { chrome: { storage: { local: { set(v: object): Promise<void> } } } };

/** The person's browser with the extension, paired with a gateway run with `flags` (the scenarios' by default). */
export async function startPersonRig(options: { headless?: boolean; flags?: readonly string[]; files?: Record<string, string> } = {}): Promise<PersonRig> {
  const logs: Array<Record<string, unknown>> = [];
  // Two API keys: an agent's identity in the person's browser is the key its gateway checked.
  const [gw, server] = await Promise.all([
    startGateway(['--extension', '--daemon-port', '0', '--api-key-file', keyFile(), ...(options.flags ?? SCENARIO_FLAGS)], { logs }),
    startFixtureServer(options.files ? { files: options.files } : {}),
  ]);
  const personUrl = server.url('/links.html?person=reading');
  const browser = await launchPersonBrowser({ extensionDir: EXTENSION_DIR, startUrl: personUrl, headless: options.headless === true });
  try {
    const worker = `chrome-extension://${EXTENSION_ID}/`;
    for (let i = 0; i < 300; i++) {
      const targets = await fetch(`${browser.endpoint}/json/list`).then((r) => r.json() as Promise<Array<{ type: string; url: string }>>);
      if (targets.some((t) => t.type === 'service_worker' && t.url.startsWith(worker))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const personTab = await browser.tabWith(personUrl);
    if (!personTab) throw new Error(`the person's tab ${personUrl} is not open`);
    const optionsTab = await browser.open(`chrome-extension://${EXTENSION_ID}/options.html`);
    const control = await browser.page(optionsTab.id);
    await control.waitFor(() => document.readyState === 'complete');
    // Paired as the person pairs (the code the gateway printed); pasting it into the popup has a test of its own.
    const backend = gw.backend as ExtensionBackend;
    await control.evaluate(
      (u: string, code: string) =>
        (globalThis as unknown as StorageWindow).chrome.storage.local.set({ daemonUrl: u, pairingCode: code, paused: false, askBeforeNewAgents: false }),
      backend.extensionUrl,
      backend.pairingCode,
    );
    for (let i = 0; i < 400 && !gw.backend.browserConnected(); i++) await new Promise((r) => setTimeout(r, 50));
    if (!gw.backend.browserConnected()) throw new Error('the extension did not connect to the gateway');
    const backToPersonTab = () => browser.activate(personTab.id);
    const activeUrls = async () =>
      (await control.evaluate<Array<{ url?: string }>>(() => (globalThis as unknown as ChromeTabs).chrome.tabs.query({ active: true }))).map((t) => t.url);
    await backToPersonTab();
    return {
      gw,
      logs,
      server,
      browser,
      personTabId: personTab.id,
      personUrl,
      control,
      activeUrls,
      backToPersonTab,
      async openPopup() {
        const tab = await browser.open(`chrome-extension://${EXTENSION_ID}/popup.html`);
        const page = await browser.page(tab.id);
        await page.waitFor(() => document.readyState === 'complete');
        return {
          page,
          async close({ backToPersonTab: back = true } = {}) {
            await page.close();
            await browser.close(tab.id).catch(() => undefined);
            if (back) await backToPersonTab();
          },
        };
      },
      clickAsPerson,
      pressCancelOnDebuggingBar: () => pressCancelOnDebuggingBar(browser),
      setStorage: (values) => control.evaluate((v: Record<string, unknown>) => (globalThis as unknown as StorageWindow).chrome.storage.local.set(v), values),
      async close() {
        await control.close().catch(() => undefined);
        await browser.quit();
        await gw.close();
        await server.close();
      },
    };
  } catch (error) {
    await browser.quit();
    await gw.close();
    await server.close();
    throw error;
  }
}

// Chrome's bars sit between its toolbar and the page; their buttons are Chrome's own blue (Chromium 150, light theme).
const BAR_BAND = { left: 0, top: 60, right: 1400, bottom: 220 };
const BAR_BUTTON_BLUE = [11, 87, 208];

async function pressCancelOnDebuggingBar(browser: PersonBrowser): Promise<void> {
  const display = browser.display;
  if (!display) throw new Error("Chrome's debugging bar is pressed on a headed browser's display only");
  const button = async () => {
    // A button's face (Cancel is some 70 × 30 pixels), not an underline or a letter of the same blue.
    const box = findBlock(await captureScreen(display), BAR_BUTTON_BLUE, BAR_BAND, 30);
    return box && box.bottom - box.top > 15 ? box : undefined;
  };
  let cancel: Awaited<ReturnType<typeof button>>;
  for (const end = Date.now() + 10_000; !(cancel = await button()) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 200));
  if (!cancel) throw new Error('Chrome\'s "started debugging this browser" bar did not show within 10 s');
  await clickScreen(display, (cancel.left + cancel.right) / 2, (cancel.top + cancel.bottom) / 2);
  for (const end = Date.now() + 5000; await button(); ) {
    if (Date.now() > end) throw new Error("Chrome's debugging bar is still there after the click on its Cancel");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A real mouse click (Input.dispatchMouseEvent: trusted events) at the centre of the element `find` evaluates to. */
async function clickAsPerson(page: PageConnection, find: string): Promise<void> {
  const box = await page.waitFor<{ x: number; y: number }>(
    // Scrolled into view first, as the person scrolls to what they click.
    `() => { const el = (${find})(); if (!el) return null; el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect(); return r.width > 0 ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : null; }`,
  );
  for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased']) {
    await page.send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: type === 'mouseMoved' ? 0 : 1 });
  }
}

/** The shared scenarios' hooks, as the person acts in their browser. */
export function personModeRig(rig: PersonRig): ModeRig {
  const tabShowing = async (url: string) => {
    const tab = await rig.browser.tabWith(url);
    if (!tab) throw new Error(`no tab shows ${url}`);
    return tab;
  };
  return {
    mode: 'extension',
    server: rig.server,
    client: (name, options) => connectClient(rig.gw, name, options),
    async closeAsPerson(url) {
      await rig.browser.close((await tabShowing(url)).id);
    },
    async lookAt(url) {
      await rig.browser.activate((await tabShowing(url)).id);
      return rig.backToPersonTab;
    },
    async afterScenario() {
      // Agents never take the person's place: whatever a scenario did, the person's own tab is still in front.
      const active = await rig.activeUrls();
      if (active.length !== 1 || active[0] !== rig.personUrl) {
        await rig.backToPersonTab();
        throw new Error(`the person's tab is no longer in front after the scenario: ${active.join(', ')}`);
      }
    },
    async notifications() {
      return Object.keys(
        await rig.control.evaluate<Record<string, boolean>>(() =>
          (globalThis as unknown as { chrome: { notifications: { getAll(): Promise<Record<string, boolean>> } } }).chrome.notifications.getAll(),
        ),
      );
    },
    async answerBanner(url, button, options = {}) {
      // As the person: the popup says an agent asks something; a click on it shows the tab; they answer in it.
      const popup = await rig.openPopup();
      await popup.page.waitFor(() => Array.from(document.querySelectorAll('li.agent.asking')).some((li) => li.textContent?.includes('asks you:')));
      await rig.clickAsPerson(popup.page, `() => document.querySelector('li.agent.asking .agent-show')`);
      await rig.control.waitFor(
        (u: string) => (globalThis as unknown as ChromeTabs).chrome.tabs.query({ active: true }).then((tabs) => tabs.some((t) => t.url === u)),
        [url],
      );
      // The popup goes away once the person looks at the tab (a real popup closes when it loses focus).
      await popup.close({ backToPersonTab: false });
      const tab = await tabShowing(url);
      const page = await rig.browser.page(tab.id);
      try {
        // The banner names the agent (its tab group's label) and covers none of the page: the page moved down.
        const banner = await page.waitFor<{ who: string; first: number; bottom: number }>(() => {
          const host = document.getElementById('browsermcp-ask');
          const first = document.body?.firstElementChild;
          return host && first
            ? {
                who: host.shadowRoot?.getElementById('who')?.textContent ?? '',
                first: first.getBoundingClientRect().top,
                bottom: host.getBoundingClientRect().bottom,
              }
            : null;
        });
        if (!/^"scenario .+" asks you:$/.test(banner.who)) throw new Error(`the banner does not name the agent: ${banner.who}`);
        if (banner.first < banner.bottom)
          throw new Error(`the banner covers the page: its first element at ${banner.first} px, the banner's bottom at ${banner.bottom} px`);
        if (options.outlined !== undefined) {
          // The element the agent named is outlined where it is now, below the banner.
          const off = await page.evaluate<number | null>((selector: string) => {
            const el = document.querySelector(selector);
            const box = document.querySelector('[data-browsermcp-highlight]');
            if (!el || !box) return null;
            const [a, b] = [el.getBoundingClientRect(), box.getBoundingClientRect()];
            return Math.abs(a.left - b.left) + Math.abs(a.top - b.top) + Math.abs(a.width - b.width) + Math.abs(a.height - b.height);
          }, options.outlined);
          if (off === null || off > 4) throw new Error(`${options.outlined} is not outlined (${off === null ? 'no outline' : `the outline is ${off} px off`})`);
        }
        await rig.clickAsPerson(page, `() => document.getElementById('browsermcp-ask')?.shadowRoot?.getElementById(${JSON.stringify(button)})`);
      } finally {
        await page.close();
      }
      await rig.backToPersonTab();
    },
  };
}
