import { parseBrowserEntry, parseInstanceEntry, type BrowserEntry, type InstanceEntry } from '@browsermcp/protocol';
import { KvWatchInclude, type KV, type KvEntry } from '@nats-io/kv';
import { listKeys } from './keys.js';
import { token } from './names.js';

const browserKey = (executorId: string): string => `b.${token(executorId)}`;

interface Cached {
  readonly revision: number;
  /** When this copy learned it (a refresh does not drop what it learned while the refresh ran). */
  readonly at: number;
  readonly browser?: BrowserEntry | undefined;
  readonly instance?: InstanceEntry | undefined;
}
const instanceKey = (instanceId: string): string => `i.${instanceId}`;

function parsed<T>(entry: KvEntry | null, parse: (value: unknown) => { ok: true; value: T } | { ok: false }): T | undefined {
  if (entry === null || entry.operation !== 'PUT') return undefined;
  try {
    const result = parse(entry.json());
    return result.ok ? result.value : undefined;
  } catch {
    return undefined; // not JSON: written by something else, ignored
  }
}

/**
 * Which instance holds which browser, and which instances are alive: a KV bucket whose entries expire (bucket TTL)
 * unless their instance's heartbeat writes them again, so a dead instance's entries disappear by themselves.
 * Reads come from a copy kept by a watch (new entries at once) and a full read on every heartbeat (expired ones,
 * which a watch is not told about).
 */
export class BrowserDirectory {
  /** KV key → what it holds, with its revision and when this copy learned it. */
  #entries = new Map<string, Cached>();
  #stopWatch: (() => void) | undefined;
  /** Until then a refresh drops no entry: see keepUntil. */
  #keepUntil = 0;
  /** Told when a browser's entry changes whether it is connected (or appears), with the entry now. */
  onBrowserChange: ((browser: BrowserEntry) => void) | undefined;

  constructor(private readonly kv: KV) {}

  /** Reads the whole directory, then follows its changes. */
  async start(): Promise<void> {
    await this.refresh();
    const watcher = await this.kv.watch({ include: KvWatchInclude.UpdatesOnly });
    this.#stopWatch = () => watcher.stop();
    void (async () => {
      for await (const entry of watcher) this.#apply(entry.key, entry);
    })().catch(() => undefined);
  }

  stop(): void {
    this.#stopWatch?.();
  }

  /**
   * Drops no entry before `time`: after NATS was away, entries may have expired because no instance could write them,
   * not because their instances died; the live ones write them again within a heartbeat of their own reconnect.
   */
  keepUntil(time: number): void {
    this.#keepUntil = time;
  }

  /**
   * Reads every entry again. What the watch or a write of ours taught this copy while the read ran is kept (the read
   * may have seen it before it changed); what the read no longer finds and nothing refreshed since has expired.
   */
  async refresh(): Promise<void> {
    const started = Date.now();
    const read = new Map<string, KvEntry | null>();
    for (const key of await listKeys(this.kv)) read.set(key, await this.kv.get(key));
    if (started >= this.#keepUntil) {
      for (const [key, cached] of this.#entries) if (!read.has(key) && cached.at < started) this.#entries.delete(key);
    }
    for (const [key, entry] of read) this.#apply(key, entry);
  }

  /** Learns one entry, unless this copy already knows a newer revision of it. */
  #apply(key: string, entry: KvEntry | null): void {
    const known = this.#entries.get(key);
    if (entry === null || (known !== undefined && known.revision > entry.revision)) return;
    const browser = key.startsWith('b.') ? parsed(entry, parseBrowserEntry) : undefined;
    const instance = key.startsWith('i.') ? parsed(entry, parseInstanceEntry) : undefined;
    // A deleted entry stays as a tombstone with its revision, so an older read cannot bring it back.
    this.#entries.set(key, { revision: entry.revision, at: Date.now(), browser, instance });
    if (browser !== undefined && (known?.browser?.connected !== browser.connected || known.browser.instanceId !== browser.instanceId)) {
      this.onBrowserChange?.(browser);
    }
  }

  #learn(key: string, revision: number, value: Pick<Cached, 'browser' | 'instance'>): void {
    const known = this.#entries.get(key);
    if (known === undefined || known.revision <= revision) this.#entries.set(key, { revision, at: Date.now(), ...value });
  }

  browser(executorId: string): BrowserEntry | undefined {
    return this.#entries.get(browserKey(executorId))?.browser;
  }

  browsers(): BrowserEntry[] {
    return [...this.#entries.values()].flatMap((cached) => (cached.browser ? [cached.browser] : []));
  }

  instances(): InstanceEntry[] {
    return [...this.#entries.values()].flatMap((cached) => (cached.instance ? [cached.instance] : []));
  }

  async putInstance(instance: InstanceEntry): Promise<void> {
    const key = instanceKey(instance.instanceId);
    this.#learn(key, await this.kv.put(key, JSON.stringify(instance)), { instance });
  }

  async deleteInstance(instanceId: string): Promise<void> {
    await this.kv.delete(instanceKey(instanceId));
  }

  async putBrowser(browser: BrowserEntry): Promise<void> {
    const key = browserKey(browser.id);
    this.#learn(key, await this.kv.put(key, JSON.stringify(browser)), { browser });
  }

  /**
   * Writes a browser's entry again only if `instanceId` still holds it there; returns the entry's holder now
   * (another instance when the browser moved, undefined when the entry is gone).
   */
  async refreshBrowserIf(instanceId: string, browser: BrowserEntry): Promise<string | undefined> {
    const entry = await this.kv.get(browserKey(browser.id));
    const current = parsed(entry, parseBrowserEntry);
    if (current !== undefined && current.instanceId !== instanceId) return current.instanceId;
    try {
      const key = browserKey(browser.id);
      const text = JSON.stringify(browser);
      this.#learn(key, current === undefined ? await this.kv.create(key, text) : await this.kv.update(key, text, entry!.revision), { browser });
      return instanceId;
    } catch {
      // Written by another instance between the read and the write: it holds the browser now.
      return parsed(await this.kv.get(browserKey(browser.id)), parseBrowserEntry)?.instanceId;
    }
  }

  /** Deletes a browser's entry if `instanceId` still holds it (a browser that moved keeps its new entry). */
  async deleteBrowserIf(instanceId: string, executorId: string): Promise<void> {
    const entry = await this.kv.get(browserKey(executorId));
    const current = parsed(entry, parseBrowserEntry);
    if (current === undefined || current.instanceId !== instanceId) return;
    await this.kv.delete(browserKey(executorId), { previousSeq: entry!.revision }).catch(() => undefined);
    if (this.browser(executorId)?.instanceId === instanceId) this.#entries.delete(browserKey(executorId));
    // (the watch brings its tombstone)
  }
}
