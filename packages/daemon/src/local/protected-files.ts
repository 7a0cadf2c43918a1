import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { SYSTEM_DIRS } from '@browsermcp/tools';

/** The server's own files and folders: a list, or a function that gives it at each check. */
export type ProtectedPaths = readonly string[] | (() => readonly string[]);

/** Whether `path` is `root` or inside it (both absolute, resolved). */
export function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

/**
 * The server's own files and directories (its key files, secrets, pairing secret, config file, NATS seeds and TLS
 * keys, browser profile) and the kernel's: no tool reads them, whatever the roots, `--allow-unrestricted-file-access`
 * included. A path is judged as named and where it really is (through links), and a file by its inode too, so a hard
 * link to a key file in an allowed folder is refused as well.
 */
export class ProtectedFiles {
  /** The list, or where to find it at each check (a launched browser's profile exists only while it runs). */
  constructor(private readonly paths: ProtectedPaths) {}

  /** Why a file may never be an input, or undefined. `named` as asked; `real` where it is, if it exists. */
  async refusal(named: string, real: string | undefined): Promise<string | undefined> {
    const seen = real === undefined ? [named] : [named, real];
    if (SYSTEM_DIRS.some((dir) => seen.some((p) => inside(dir, p)))) {
      return `${named} is the system's view of processes and devices (${SYSTEM_DIRS.join(', ')}), which holds this server's own environment: no tool reads it.`;
    }
    const listed = typeof this.paths === 'function' ? this.paths() : this.paths;
    const own = await Promise.all(
      [...new Set(listed.map((p) => resolve(p)))].map(async (path) => ({
        path,
        real: await realpath(path).catch(() => path),
        info: await stat(path).catch(() => undefined),
      })),
    );
    const hit = own.find((p) => seen.some((s) => inside(p.path, s) || inside(p.real, s)));
    const info = real === undefined ? undefined : await stat(real).catch(() => undefined);
    const sameFile = info && own.find((p) => p.info?.isFile() && p.info.ino === info.ino && p.info.dev === info.dev);
    if (hit || sameFile) {
      return `${named} is one of this server's own files (its keys, secrets, configuration or browser profile): no tool reads it, whatever the roots. Upload a copy of what you need from your project folder instead.`;
    }
    return undefined;
  }
}
