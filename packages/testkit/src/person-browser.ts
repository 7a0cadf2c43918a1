import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { QUIET_FLAGS, testChromePath } from './browser.js';
import { alive, processTree } from './processes.js';

/**
 * A person's browser for tests: Chromium started as a person starts it (headed under its own Xvfb by default), the
 * extension loaded, and NO browser-wide DevTools client. Such a client (puppeteer.launch/connect, Playwright's
 * connectOverCDP) changes how Chrome treats every tab while attached (focus emulation among others) and so hides what
 * Chrome does to an agent's background tab. Tests reach it through the DevTools HTTP endpoints (/json/list, /new,
 * /activate, /close) and a DevTools connection to one page target at a time (`page(id)`), the way a person acts on the
 * one tab they look at.
 */
export interface PersonBrowser {
  /** Where the DevTools HTTP endpoints are, e.g. http://127.0.0.1:PORT. */
  readonly endpoint: string;
  readonly headed: boolean;
  /** The X display the headed browser draws on (its own Xvfb), for clicking Chrome's own bars with xdotool. */
  readonly display: string | undefined;
  /** The browser's page targets (tabs, and extension pages opened as tabs), in Chrome's order. */
  tabs(): Promise<TargetInfo[]>;
  /** The tab showing `url` (exactly), or undefined. */
  tabWith(url: string): Promise<TargetInfo | undefined>;
  /** Opens a new tab on `url` in front, as the person opening one would. */
  open(url: string): Promise<TargetInfo>;
  /** Brings a tab to front, as the person clicking it would. */
  activate(id: string): Promise<void>;
  /** Closes a tab, as the person closing it would. */
  close(id: string): Promise<void>;
  /** A DevTools connection to one page target only. */
  page(id: string): Promise<PageConnection>;
  /** Ends the browser (and its display), leaving no process behind. */
  quit(): Promise<void>;
}

export interface TargetInfo {
  id: string;
  type: string;
  url: string;
  title: string;
  webSocketDebuggerUrl?: string;
}

export interface PageConnection {
  /** Runs `fn(...args)` in the page and returns its (awaited, JSON) value; a thrown error is rethrown here. */
  evaluate<T = unknown>(fn: string | ((...args: never[]) => unknown), ...args: unknown[]): Promise<T>;
  /** Polls `fn(...args)` in the page until it returns a truthy value, which it returns. */
  waitFor<T = unknown>(fn: string | ((...args: never[]) => unknown), args?: unknown[], timeoutMs?: number): Promise<T>;
  /** A raw CDP command to this page. */
  send<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

export interface PersonBrowserOptions {
  /** An unpacked extension to load. */
  extensionDir?: string;
  /** The page the person has open in front when the browser starts. */
  startUrl?: string;
  /** Headless instead of headed: the same endpoints, for the runs that must not need a display. */
  headless?: boolean;
}

/** An X display of the test's own (Xvfb picks a free number and tells it on a pipe). */
async function startDisplay(): Promise<{ display: string; process: ChildProcess }> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1400x900x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  xvfb.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const display = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`Xvfb did not start within 10 s: ${stderr}`)), 10_000);
    (xvfb.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(`:${out.trim()}`);
      }
    });
    xvfb.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start Xvfb (${error.message}): install it (apt-get install -y xvfb) for the headed browser tests`));
    });
    xvfb.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${code}): ${stderr}`));
    });
  });
  return { display, process: xvfb };
}

async function waitForFile(path: string, child: ChildProcess, stderr: () => string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`Chromium exited (${child.exitCode}) before it listened: ${stderr()}`);
    try {
      const text = readFileSync(path, 'utf8');
      if (text.includes('\n')) return text;
    } catch {
      // not written yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Chromium did not write ${path} within 15 s: ${stderr()}`);
}

export async function launchPersonBrowser(options: PersonBrowserOptions = {}): Promise<PersonBrowser> {
  const headed = options.headless !== true;
  const screen = headed ? await startDisplay() : undefined;
  const profile = mkdtempSync(join(tmpdir(), 'bmcp-person-'));
  const args = [
    ...QUIET_FLAGS,
    `--user-data-dir=${profile}`,
    '--remote-debugging-port=0',
    '--remote-allow-origins=*',
    '--no-default-browser-check',
    '--window-position=0,0',
    '--window-size=1400,900',
    // The person's Chrome lets sites offer agents tools (WebMCP: an origin trial, or this flag).
    '--enable-features=WebMCP',
  ];
  if (!headed) args.push('--headless');
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  if (options.extensionDir) args.push(`--load-extension=${options.extensionDir}`, `--disable-extensions-except=${options.extensionDir}`);
  args.push(options.startUrl ?? 'about:blank');
  const child = spawn(testChromePath(), args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...(screen ? { DISPLAY: screen.display } : {}) },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const quit = async (): Promise<void> => {
    const pids = child.pid ? processTree(child.pid) : [];
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    if (screen && screen.process.exitCode === null) {
      const gone = new Promise((resolve) => screen.process.once('exit', resolve));
      screen.process.kill('SIGTERM');
      await gone;
    }
    rmSync(profile, { recursive: true, force: true });
  };
  let endpoint: string;
  try {
    const [port] = (await waitForFile(join(profile, 'DevToolsActivePort'), child, () => stderr)).split('\n');
    endpoint = `http://127.0.0.1:${port}`;
  } catch (error) {
    await quit();
    throw error;
  }
  const json = async <T>(path: string, method = 'GET'): Promise<T> => {
    const response = await fetch(`${endpoint}${path}`, { method });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    const text = await response.text();
    return (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text) as T;
  };
  const tabs = async () => (await json<TargetInfo[]>('/json/list')).filter((t) => t.type === 'page');
  return {
    endpoint,
    headed,
    display: screen?.display,
    tabs,
    async tabWith(url) {
      return (await tabs()).find((t) => t.url === url);
    },
    open: (url) => json<TargetInfo>(`/json/new?${encodeURI(url)}`, 'PUT'),
    async activate(id) {
      await json(`/json/activate/${id}`);
    },
    async close(id) {
      await json(`/json/close/${id}`);
    },
    async page(id) {
      const target = (await tabs()).find((t) => t.id === id);
      if (!target?.webSocketDebuggerUrl) throw new Error(`no page target ${id} to connect to`);
      return connectPage(target.webSocketDebuggerUrl);
    },
    quit,
  };
}

async function connectPage(url: string): Promise<PageConnection> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id === undefined) return;
    const entry = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) entry?.reject(new Error(message.error.message));
    else entry?.resolve(message.result);
  });
  ws.on('close', () => {
    for (const entry of waiting.values()) entry.reject(new Error('the page connection closed'));
    waiting.clear();
  });
  const send = <T>(method: string, params: Record<string, unknown> = {}): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (ws.readyState !== WebSocket.OPEN) return reject(new Error(`the page connection is closed (${method})`));
      const id = nextId++;
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  const evaluate = async <T>(fn: string | ((...args: never[]) => unknown), ...args: unknown[]): Promise<T> => {
    const expression = `(${String(fn)})(...${JSON.stringify(args)})`;
    const result = await send<{ result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } }>('Runtime.evaluate', {
      expression,
      awaitPromise: true,
      returnByValue: true,
      userGesture: true,
    });
    if (result.exceptionDetails) throw new Error(result.exceptionDetails.exception?.description ?? result.exceptionDetails.text);
    return result.result.value as T;
  };
  return {
    evaluate,
    async waitFor<T>(fn: string | ((...args: never[]) => unknown), args: unknown[] = [], timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      let failure: unknown;
      for (;;) {
        // A page still loading (a tab just opened) may throw: that is "not yet", as for a person waiting for it.
        const value = await evaluate<T>(fn, ...args).catch((error: unknown) => {
          failure = error;
          return undefined;
        });
        if (value) return value;
        if (Date.now() > deadline) {
          throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(fn)}${failure ? ` (last error: ${(failure as Error).message})` : ''}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    send,
    async close() {
      if (ws.readyState === WebSocket.CLOSED) return;
      const closed = new Promise((resolve) => ws.once('close', resolve));
      ws.close();
      await closed;
    },
  };
}
