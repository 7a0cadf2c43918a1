import { parseBrowserEntry, parseInstanceEntry, type BrowserEntry, type InstanceEntry } from '@browsermcp/protocol';
import { KvWatchInclude, type KV, type KvEntry } from '@nats-io/kv';
import { token } from './names.js';

const browserKey = (executorId: string): string => `b.${token(executorId)}`;
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
  #browsers = new Map<string, BrowserEntry>();
  #instances = new Map<string, InstanceEntry>();
  #stopWatch: (() => void) | undefined;

  constructor(private readonly kv: KV) {}

  /** Reads the whole directory, then follows its changes. */
  async start(): Promise<void> {
    await this.refresh();
    const watcher = await this.kv.watch({ include: KvWatchInclude.UpdatesOnly });
    this.#stopWatch = () => watcher.stop();
    void (async () => {
      for await (const entry of watcher) this.#apply(entry);
    })().catch(() => undefined);
  }

  stop(): void {
    this.#stopWatch?.();
  }

  async refresh(): Promise<void> {
    const browsers = new Map<string, BrowserEntry>();
    const instances = new Map<string, InstanceEntry>();
    for await (const key of await this.kv.keys()) {
      const entry = await this.kv.get(key);
      if (key.startsWith('b.')) {
        const browser = parsed(entry, parseBrowserEntry);
        if (browser) browsers.set(browser.id, browser);
      } else if (key.startsWith('i.')) {
        const instance = parsed(entry, parseInstanceEntry);
        if (instance) instances.set(instance.instanceId, instance);
      }
    }
    this.#browsers = browsers;
    this.#instances = instances;
  }

  #apply(entry: KvEntry): void {
    if (entry.key.startsWith('b.')) {
      const browser = parsed(entry, parseBrowserEntry);
      if (browser) this.#browsers.set(browser.id, browser);
      else for (const [id] of this.#browsers) if (browserKey(id) === entry.key) this.#browsers.delete(id);
    } else if (entry.key.startsWith('i.')) {
      const instance = parsed(entry, parseInstanceEntry);
      if (instance) this.#instances.set(instance.instanceId, instance);
      else this.#instances.delete(entry.key.slice(2));
    }
  }

  browser(executorId: string): BrowserEntry | undefined {
    return this.#browsers.get(executorId);
  }

  browsers(): BrowserEntry[] {
    return [...this.#browsers.values()];
  }

  instances(): InstanceEntry[] {
    return [...this.#instances.values()];
  }

  async putInstance(instance: InstanceEntry): Promise<void> {
    await this.kv.put(instanceKey(instance.instanceId), JSON.stringify(instance));
  }

  async deleteInstance(instanceId: string): Promise<void> {
    await this.kv.delete(instanceKey(instanceId));
  }

  async putBrowser(browser: BrowserEntry): Promise<void> {
    await this.kv.put(browserKey(browser.id), JSON.stringify(browser));
    this.#browsers.set(browser.id, browser);
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
      if (current === undefined) await this.kv.create(browserKey(browser.id), JSON.stringify(browser));
      else await this.kv.update(browserKey(browser.id), JSON.stringify(browser), entry!.revision);
      this.#browsers.set(browser.id, browser);
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
    if (this.#browsers.get(executorId)?.instanceId === instanceId) this.#browsers.delete(executorId);
  }
}
