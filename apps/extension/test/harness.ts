import { fileURLToPath } from 'node:url';
import { buildDaemonApp, EXTENSION_ID, SessionRouter } from '@browsermcp/daemon';
import { formatPairingCode, newPairingSecret } from '@browsermcp/protocol';
import { launchExtensionBrowser, openExtensionPage, startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'puppeteer-core';

export const DIST = fileURLToPath(new URL('../dist', import.meta.url));
/** The id Chrome derives from the manifest's fixed key, which the daemon accepts by default. */
export { EXTENSION_ID };

export interface ExtensionHarness {
  router: SessionRouter;
  daemon: FastifyInstance;
  daemonUrl: string;
  /** The secret the daemon and the extension are paired with (a daemon started again must keep it). */
  pairingSecret: Uint8Array;
  browser: Browser;
  server: FixtureServer;
  /**
   * An extension page (the options page) to call chrome.* APIs from, as the extension itself would. Tests never open
   * a DevTools session on the service worker: one holds a restarting worker at "starting".
   */
  control(): Promise<Page>;
  close(): Promise<void>;
}

export interface ExtensionHarnessOptions {
  gracePeriodMs?: number;
  /** The instance id the daemon asks the browser to sign hold proofs for (DaemonAppOptions.holdProofsFor). */
  holdProofsFor?: string;
}

/** A daemon on an ephemeral loopback port and a headless Chromium with the built extension loaded. */
export async function startExtensionHarness(options: ExtensionHarnessOptions = {}): Promise<ExtensionHarness> {
  const router = new SessionRouter({ gracePeriodMs: options.gracePeriodMs ?? 300_000 });
  const pairingSecret = newPairingSecret();
  const daemon = await buildDaemonApp({
    router,
    extensionIds: [EXTENSION_ID],
    heartbeatMs: 60_000,
    pairingSecret,
    ...(options.holdProofsFor !== undefined ? { holdProofsFor: options.holdProofsFor } : {}),
  });
  await daemon.listen({ port: 0, host: '127.0.0.1' });
  const address = daemon.server.address() as { port: number };
  const server = await startFixtureServer();
  const browser = await launchExtensionBrowser(DIST);
  let controlPage: Page | undefined;
  const control = async () => {
    if (!controlPage || controlPage.isClosed()) controlPage = await openExtensionPage(browser, EXTENSION_ID, 'options.html');
    return controlPage;
  };
  return {
    router,
    daemon,
    daemonUrl: `ws://127.0.0.1:${address.port}/extension`,
    pairingSecret,
    browser,
    server,
    control,
    async close() {
      await browser.close();
      await daemon.close();
      await router.close();
      await server.close();
    },
  };
}

/**
 * Pairs the extension with the test daemon, as a person pasting its pairing code would, and returns the browser id it
 * connected with (the hash of its own key: a test cannot choose it).
 */
export async function connectExtension(h: ExtensionHarness): Promise<string> {
  const w = await h.control();
  await w.evaluate(
    (url, code) => chrome.storage.local.set({ daemonUrl: url, pairingCode: code, paused: false, askBeforeNewAgents: false }),
    h.daemonUrl,
    formatPairingCode({ url: h.daemonUrl, secret: h.pairingSecret }),
  );
  await waitFor(async () => (await h.router.stats()).executors === 1, 'the extension to connect to the daemon');
  return connectedBrowserId(h);
}

/** The id of the one browser connected to the harness's daemon now. */
export function connectedBrowserId(h: ExtensionHarness): string {
  const connected = [...h.daemon.browsermcp.extensions.records.values()].filter((record) => record.connection !== null);
  if (connected.length !== 1) throw new Error(`expected one connected browser, found ${connected.length}`);
  return connected[0]!.id;
}

/** Polls a condition (for hooks, where expect.poll is not available). */
export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export { refIn, textOf } from '@browsermcp/testkit';
