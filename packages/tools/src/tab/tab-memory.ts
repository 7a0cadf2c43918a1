import type { Page } from 'puppeteer-core';
import { cdp } from '../engine/cdp.js';

/** How often a tab's memory is read: often enough to stop a runaway page within seconds, rarely enough to cost nothing. */
export const MEMORY_CHECK_MS = 2_000;

/** What a tab's page holds: its JavaScript heap and the memory behind its ArrayBuffers (which the heap does not count). */
export async function pageMemory(page: Page): Promise<number | undefined> {
  const usage = (await cdp(page)
    .send('Runtime.getHeapUsage')
    .catch(() => undefined)) as { usedSize: number; embedderHeapUsedSize?: number; backingStorageSize?: number } | undefined;
  return usage && usage.usedSize + (usage.embedderHeapUsedSize ?? 0) + (usage.backingStorageSize ?? 0);
}

/**
 * Reads a tab's memory every MEMORY_CHECK_MS and calls `over` once when it passes `limitBytes` (a page that keeps
 * allocating after its call returned must not take the machine down); each reading under it goes to `onReading` (a
 * budget beyond the tab: its key's). Stops with the tab, or when told to.
 */
export function watchMemory(page: Page, limitBytes: () => number, over: (bytes: number) => void, onReading?: (bytes: number) => void): () => void {
  let reading = false;
  const timer = setInterval(() => {
    if (reading || page.isClosed()) return;
    reading = true;
    void pageMemory(page)
      .then((bytes) => {
        if (bytes === undefined || page.isClosed()) return;
        if (bytes > limitBytes()) {
          clearInterval(timer);
          over(bytes);
        } else {
          onReading?.(bytes);
        }
      })
      .finally(() => {
        reading = false;
      });
  }, MEMORY_CHECK_MS);
  // A tab being watched is no reason to keep the process alive.
  (timer as { unref?: () => void }).unref?.();
  page.once('close', () => clearInterval(timer));
  return () => clearInterval(timer);
}
