import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A temporary directory for one test run, removed when the run's process exits. A package's vitest config gives it
 * to its tests as TMPDIR, so every directory a test (or a browser, daemon or nats-server it starts) makes with
 * `mkdtemp(tmpdir())` goes under it and nothing is left in /tmp after the run, even by a test that failed halfway.
 */
export function runTempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bmcp-run-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  return dir;
}
