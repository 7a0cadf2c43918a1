import type { HTTPRequest, Page } from 'puppeteer-core';
import { newestLines } from '../engine/lists.js';
import { cutText, MAX_CONSOLE_ENTRY_CHARS, MAX_CONSOLE_RING_CHARS } from '../engine/sizes.js';
import { CONSOLE_LEVELS, TOOL_SETTING_DEFAULTS } from '@browsermcp/protocol';

export { CONSOLE_LEVELS };
export type ConsoleLevel = (typeof CONSOLE_LEVELS)[number];

export interface ConsoleEntry {
  level: string;
  text: string;
  location?: string;
  /** Which of the tab's documents logged it (see TabLogs.currentDocument). */
  document?: number;
}

export interface NetworkEntry {
  /** The request's number in this tab, from 1: what browser_network_request takes. */
  id: number;
  method: string;
  url: string;
  resourceType: string;
  status?: number;
  failure?: string;
  /** Which of the tab's documents made it (see TabLogs.currentDocument). */
  document: number;
  /** The request itself, for its headers and bodies. */
  request: HTTPRequest;
}

/**
 * What a tab's page logged and fetched: console messages and requests, each in a ring of `maxLogEntries`, numbered by the
 * main frame's document they belong to; and which messages an answer has not reported yet.
 */
export class TabLogs {
  readonly console: ConsoleEntry[] = [];
  readonly network: NetworkEntry[] = [];
  /** Counts the main frame's documents: console and network views show the current one's by default. */
  currentDocument = 0;
  /** Entries each ring keeps: a page that logs or fetches without end holds this many, not more. */
  maxLogEntries = TOOL_SETTING_DEFAULTS.maxLogEntries;
  private consoleSeen = 0;
  /** The characters the console ring holds. */
  private consoleChars = 0;
  /** Messages the ring dropped before any answer reported them. */
  private consoleDropped = 0;
  private readonly requests = new Map<HTTPRequest, NetworkEntry>();
  private nextRequestId = 1;

  constructor(page: Page) {
    page.on('console', (msg) => {
      const loc = msg.location();
      this.pushConsole({
        level: msg.type(),
        text: msg.text(),
        // Code the tools evaluated carries puppeteer's own source name (with this machine's paths): not the page's.
        ...(loc.url && !loc.url.startsWith('pptr:') ? { location: `${loc.url}:${(loc.lineNumber ?? 0) + 1}` } : {}),
      });
    });
    page.on('pageerror', (err) => {
      const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
      this.pushConsole({ level: 'error', text });
    });
    page.on('request', (req) => {
      // A new document starts with its own request: what it and its page do belong to it.
      if (req.isNavigationRequest() && req.frame() === page.mainFrame()) this.currentDocument++;
      const entry: NetworkEntry = {
        id: this.nextRequestId++,
        method: req.method(),
        url: req.url(),
        resourceType: req.resourceType(),
        document: this.currentDocument,
        request: req,
      };
      this.requests.set(req, entry);
      push(this.network, entry, this.maxLogEntries);
    });
    page.on('requestfinished', (req) => {
      const entry = this.requests.get(req);
      if (entry) entry.status = req.response()?.status() ?? 0;
      this.requests.delete(req);
    });
    page.on('requestfailed', (req) => {
      const entry = this.requests.get(req);
      if (entry) entry.failure = req.failure()?.errorText ?? 'failed';
      this.requests.delete(req);
    });
  }

  /** Whether a request is still under way (neither finished nor failed). */
  pending(request: HTTPRequest): boolean {
    return this.requests.has(request);
  }

  private pushConsole(entry: ConsoleEntry): void {
    entry.document = this.currentDocument;
    // Bounded in characters too: each message, and the ring as a whole (oldest first, as past maxLogEntries).
    entry.text = cutText(entry.text, MAX_CONSOLE_ENTRY_CHARS, 'the page logged a longer message');
    this.consoleChars += entry.text.length;
    let removed = push(this.console, entry, this.maxLogEntries, (gone) => (this.consoleChars -= gone.text.length));
    while (this.consoleChars > MAX_CONSOLE_RING_CHARS && this.console.length > 1) {
      this.consoleChars -= this.console.shift()!.text.length;
      removed++;
    }
    this.consoleDropped += Math.max(0, removed - this.consoleSeen);
    this.consoleSeen = Math.max(0, this.consoleSeen - removed);
  }

  /**
   * Console messages since the last call, at `level` or more severe (all levels by default), one per line: the newest
   * `max` of them, after a first line that counts the rest (and those the ring dropped unread), so a page that spams
   * its console cannot fill every answer.
   */
  takeNewConsole(level: ConsoleLevel = 'debug', max = Infinity): string[] {
    const fresh = this.console.slice(Math.min(this.consoleSeen, this.console.length)).filter((e) => consoleRank(e.level) <= CONSOLE_LEVELS.indexOf(level));
    const dropped = this.consoleDropped;
    this.consoleSeen = this.console.length;
    this.consoleDropped = 0;
    // Formatted only when a note is written: toLocaleString builds a number format each time (~0.5 ms, every call).
    return newestLines(
      fresh.map(formatConsole),
      max,
      (n) => `… ${n} earlier messages not shown (browser_console_messages lists the last ${this.maxLogEntries.toLocaleString('en')})`,
      dropped,
    );
  }
}

// Console message types from CDP mapped to the four levels (error < warning < info < debug).
const RANK: Record<string, number> = { error: 0, assert: 0, warn: 1, warning: 1, info: 2, log: 2, dir: 2, table: 2, trace: 2, debug: 3, verbose: 3 };

/** Where a CDP console type sits among the four levels: 0 error … 3 debug. */
export function consoleRank(type: string): number {
  return RANK[type] ?? 2;
}

/** One console entry as the tools print it: `[ERROR] text @ url:line`. */
export function formatConsole(e: ConsoleEntry): string {
  return `[${e.level.toUpperCase()}] ${e.text}${e.location ? ` @ ${e.location}` : ''}`;
}

/** Appends to a bounded log; returns how many old entries were dropped (each told to `dropped`). */
function push<T>(list: T[], item: T, max: number, dropped?: (item: T) => void): number {
  list.push(item);
  const extra = list.length - max;
  if (extra <= 0) return 0;
  for (const gone of list.splice(0, extra)) dropped?.(gone);
  return extra;
}
