import { KnownDevices, type BrowserContext, type CookieData, type Page } from 'puppeteer-core';

/** How every page and context a session gets is set up (@playwright/mcp's browser flags), in a launched browser. */
export interface PageSetupOptions {
  /** --user-agent. */
  userAgent?: string | undefined;
  /** --device: a puppeteer KnownDevices name, e.g. "iPhone 15"; its viewport, touch and user agent. */
  device?: string | undefined;
  /** --init-script: sources run in every document before the page's own scripts. */
  initScripts?: string[] | undefined;
  /** --block-service-workers: pages cannot register service workers. */
  blockServiceWorkers?: boolean | undefined;
  /** --grant-permissions: permissions granted to every origin, e.g. geolocation, clipboard-read. */
  grantPermissions?: string[] | undefined;
  /** --storage-state: cookies and localStorage each session's own context starts with. */
  storageState?: StorageState | undefined;
}

/** Playwright's storage state file: what a logged-in context needs to start logged in. */
export interface StorageState {
  cookies?: Array<{
    name: string;
    value: string;
    domain: string;
    path?: string;
    expires?: number;
    httpOnly?: boolean;
    secure?: boolean;
    sameSite?: 'Strict' | 'Lax' | 'None';
  }>;
  origins?: Array<{ origin: string; localStorage?: Array<{ name: string; value: string }> }>;
}

/** The device names --device takes. */
export const deviceNames = (): string[] => Object.keys(KnownDevices);

// In the page before its scripts: registering a service worker fails, as with Playwright's serviceWorkers: 'block'.
const BLOCK_SERVICE_WORKERS = `(() => {
  if (!('serviceWorker' in navigator)) return;
  const refuse = () => Promise.reject(new DOMException('Service workers are blocked (--block-service-workers).', 'SecurityError'));
  Object.defineProperty(navigator.serviceWorker, 'register', { value: refuse, configurable: false });
})();`;

/** Applied to each new page before it navigates. */
export async function setupPage(page: Page, options: PageSetupOptions): Promise<void> {
  if (options.device) await page.emulate(KnownDevices[options.device as keyof typeof KnownDevices]);
  if (options.userAgent) await page.setUserAgent({ userAgent: options.userAgent });
  if (options.blockServiceWorkers) await page.evaluateOnNewDocument(BLOCK_SERVICE_WORKERS);
  for (const source of options.initScripts ?? []) await page.evaluateOnNewDocument(source);
}

/** Applied to each browser context a session gets; `withState`: a fresh context the session owns. */
export async function setupContext(context: BrowserContext, options: PageSetupOptions, withState = false): Promise<void> {
  if (withState && options.storageState) await applyStorageState(context, options.storageState);
  if (!options.grantPermissions?.length) return;
  type Grant = Parameters<BrowserContext['setPermission']>[1];
  await context.setPermission('*', ...options.grantPermissions.map((name) => ({ permission: { name }, state: 'granted' }) as Grant));
}

/** Loads a storage state's cookies and localStorage into a context. */
export async function applyStorageState(context: BrowserContext, state: StorageState): Promise<void> {
  if (state.cookies?.length) {
    const cookies: CookieData[] = state.cookies.map((c) => ({
      name: c.name,
      value: c.value,
      domain: c.domain,
      path: c.path ?? '/',
      ...(c.expires !== undefined && c.expires > 0 ? { expires: c.expires } : {}),
      ...(c.httpOnly !== undefined ? { httpOnly: c.httpOnly } : {}),
      ...(c.secure !== undefined ? { secure: c.secure } : {}),
      ...(c.sameSite ? { sameSite: c.sameSite } : {}),
    }));
    await context.setCookie(...cookies);
  }
  const origins = (state.origins ?? []).filter((o) => o.localStorage?.length);
  if (!origins.length) return;
  // localStorage belongs to an origin's document: open each origin on a blank stand-in page (no network).
  const page = await context.newPage();
  try {
    await page.setRequestInterception(true);
    page.on('request', (req) => void req.respond({ status: 200, contentType: 'text/html', body: '<!doctype html>' }).catch(() => undefined));
    for (const o of origins) {
      await page.goto(o.origin, { waitUntil: 'domcontentloaded' });
      await page.evaluate((items: Array<{ name: string; value: string }>) => {
        // Runs in the page; the daemon compiles without DOM types.
        const storage = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage;
        for (const { name, value } of items) storage.setItem(name, value);
      }, o.localStorage!);
    }
  } finally {
    await page.close().catch(() => undefined);
  }
}
