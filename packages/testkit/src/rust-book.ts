import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The big real page of the tests and the benchmark: the Rust book on one page (`print.html`, 1.9 MB, which prints
 * itself once loaded), in the docs of the installed Rust (`rustc --print sysroot`); undefined without one.
 */
export function rustBookPath(): string | undefined {
  try {
    const sysroot = execFileSync('rustc', ['--print', 'sysroot'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const file = join(sysroot, 'share/doc/rust/html/book/print.html');
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}
