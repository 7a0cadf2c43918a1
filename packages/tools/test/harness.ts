import { refIn, startFixtureServer, textOf, type FixtureServer } from '@browsermcp/testkit';
import puppeteer, { type Browser, type BrowserContext } from 'puppeteer-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { callTool, ToolSession, type SessionConfig, type SessionHost } from '../src/index.js';

export interface Harness {
  browser: Browser;
  server: FixtureServer;
  /** A session in a fresh isolated browser context, as the daemon gives each MCP session. */
  session(config?: Partial<SessionConfig>, host?: Partial<SessionHost>): Promise<ToolSession>;
}

/** The run's Chromium (test/global-browser.ts), with the viewport launchTestBrowser gives. */
function connectSharedBrowser(): Promise<Browser> {
  return puppeteer.connect({ browserWSEndpoint: inject('chromiumEndpoint'), defaultViewport: { width: 1280, height: 720 } });
}

/** A connection to the run's Chromium and one fixture server per test file; each session gets its own browser context. */
export function useHarness(): Harness {
  const contexts: BrowserContext[] = [];
  const h = {} as Harness;
  beforeAll(async () => {
    const [browser, server] = await Promise.all([connectSharedBrowser(), startFixtureServer()]);
    h.browser = browser;
    h.server = server;
    h.session = async (config = {}, host = {}) => {
      const context = await browser.createBrowserContext();
      contexts.push(context);
      return new ToolSession({ newPage: () => context.newPage(), ...host }, config);
    };
  });
  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
    // Other files use the browser after this one: only this file's connection ends.
    await h.browser?.disconnect();
    await h.server?.close();
  });
  return h;
}

/** Calls a tool and returns its text, failing the test with the tool's own message if it reported an error. */
export async function call(session: ToolSession, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await callTool(session, name, args);
  const text = textOf(result);
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return text;
}

/** Calls a tool that must fail and returns its error text. */
export async function callError(session: ToolSession, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await callTool(session, name, args);
  const text = textOf(result);
  if (!result.isError) throw new Error(`${name} was expected to fail but returned: ${text}`);
  return text;
}

export { refIn as refOf, textOf };
