import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * --output-max-size: deletes the oldest files under `dir` (by modification time, subfolders included) until what is
 * left holds at most `maxBytes`; `keep` (the file just saved) stays even when it alone is larger. Returns what went.
 */
export async function evictOldest(dir: string, maxBytes: number, keep: string): Promise<string[]> {
  const files = await listFiles(dir);
  let total = files.reduce((sum, f) => sum + f.size, 0);
  const gone: string[] = [];
  for (const file of files.sort((a, b) => a.mtimeMs - b.mtimeMs)) {
    if (total <= maxBytes) break;
    if (file.path === keep) continue;
    // Already gone (another call evicting at once) counts as evicted.
    await unlink(file.path).catch(() => undefined);
    total -= file.size;
    gone.push(file.path);
  }
  return gone;
}

async function listFiles(dir: string): Promise<Array<{ path: string; size: number; mtimeMs: number }>> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found = await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name);
      // Links are neither followed nor counted: what they point at is not the output directory's.
      if (entry.isDirectory()) return listFiles(path);
      if (!entry.isFile()) return [];
      const info = await stat(path).catch(() => undefined);
      return info ? [{ path, size: info.size, mtimeMs: info.mtimeMs }] : [];
    }),
  );
  return found.flat();
}
