import type { SessionHost } from '@browsermcp/tools';
import type { Page } from 'puppeteer-core';
import type { SessionRecord } from '../router/store.js';

/**
 * What each key's tabs hold together, across its sessions and its kept browser states, against `--max-key-memory`:
 * one key opening many states or tabs must not take the machine from everyone else. Each tab's page is read where
 * the per-tab limit reads it (its JavaScript heap and buffers, every couple of seconds); when a key's total passes the
 * limit, its biggest tab is stopped (closed, its agent told why), the one most likely to be the cause.
 */
export class KeyMemory<Tab> {
  /** Per key (undefined: the one owner of a gateway without keys), each tab's last reading and how to stop it. */
  readonly #keys = new Map<string | undefined, Map<Tab, { bytes: number; stop: (bytes: number, total: number) => void }>>();

  constructor(readonly limitBytes: number) {}

  /** Starts counting `tab` for `key`: `stop` is called (once) if this tab is the one to close. */
  track(key: string | undefined, tab: Tab, stop: (bytes: number, total: number) => void): void {
    let tabs = this.#keys.get(key);
    if (!tabs) this.#keys.set(key, (tabs = new Map()));
    tabs.set(tab, { bytes: 0, stop });
  }

  /** A new reading of `tab`: past the key's limit, the key's biggest tab is stopped and no longer counted. */
  reading(key: string | undefined, tab: Tab, bytes: number): void {
    const tabs = this.#keys.get(key);
    const entry = tabs?.get(tab);
    if (!tabs || !entry) return;
    entry.bytes = bytes;
    let total = 0;
    let biggest: Tab | undefined;
    for (const [t, e] of tabs) {
      total += e.bytes;
      if (biggest === undefined || e.bytes > tabs.get(biggest)!.bytes) biggest = t;
    }
    if (total <= this.limitBytes || biggest === undefined) return;
    const chosen = tabs.get(biggest)!;
    this.forget(key, biggest);
    chosen.stop(chosen.bytes, total);
  }

  /** Stops counting a tab (it closed). */
  forget(key: string | undefined, tab: Tab): void {
    const tabs = this.#keys.get(key);
    tabs?.delete(tab);
    if (tabs?.size === 0) this.#keys.delete(key);
  }

  /** What `key`'s tabs held at their last readings. */
  total(key: string | undefined): number {
    let total = 0;
    for (const e of this.#keys.get(key)?.values() ?? []) total += e.bytes;
    return total;
  }
}

const MB = 1024 * 1024;
/** --max-key-memory's default, MB: two tabs at --max-tab-memory's default. */
export const DEFAULT_MAX_KEY_MEMORY_MB = 4096;

/** Whose budget a session's tabs count toward: its user's, and within it its key's (SessionRecord.account). */
export function accountOf(record: Pick<SessionRecord, 'userId' | 'account'>): string {
  return `${record.userId ?? ''}/${record.account ?? ''}`;
}

const mb = (bytes: number) => Math.round(bytes / MB).toLocaleString('en');

/** What a session's host hands its tools: its tabs counted in `ledger` under `key`, and the words when one is stopped. */
export function keyMemoryHost(ledger: KeyMemory<Page>, key: string | undefined): NonNullable<SessionHost['memory']> {
  return {
    track(page, stop) {
      ledger.track(key, page, (bytes, total) =>
        stop(
          `its page held ${mb(bytes)} MB of memory and this key's tabs together ${mb(total)} MB, past the limit of ${mb(ledger.limitBytes)} MB for one key's tabs across its sessions and browser states (--max-key-memory); the biggest is closed first`,
        ),
      );
      return { reading: (bytes) => ledger.reading(key, page, bytes), forget: () => ledger.forget(key, page) };
    },
  };
}
