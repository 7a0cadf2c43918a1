import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tempDir, testChromePath } from './local.js';

/** The built CLI: tests that run it need `pnpm --filter @browsermcp/daemon build` first (the test script does it). */
export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  address: string;
  /** The JSON log lines so far. */
  lines: Array<Record<string, unknown>>;
  /** What it wrote to stderr so far. */
  stderr: () => string;
}

/** Logs a CLI slow to start or end (a loaded machine): a test that times out then shows which process took the time. */
function warnIfSlow(args: string[], started: number, what: 'listen' | 'end'): void {
  const took = performance.now() - started;
  if (took > 5_000) console.warn(`the daemon CLI (${args.join(' ')}) took ${Math.round(took)} ms to ${what}`);
}

/** Starts the daemon CLI on a free port and resolves once it logs that it listens. */
export async function startCli(args: string[]): Promise<RunningCli> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the package first`);
  // The test machine's browser, for a daemon with a local one (--no-local refuses the local browser's flags).
  const browser = args.includes('--no-local') ? [] : ['--output-dir', tempDir('cli-out'), '--executable-path', testChromePath()];
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, '--port', '0', ...browser, ...args]);
  const lines: Array<Record<string, unknown>> = [];
  let buffer = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const address = await new Promise<string>((resolve, reject) => {
    // One that never says it listens is killed, not left behind.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the daemon did not start listening within 20 s: ${stderr}`));
    }, 20_000);
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      let i: number;
      while ((i = buffer.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffer.slice(0, i)) as Record<string, unknown>;
        buffer = buffer.slice(i + 1);
        lines.push(line);
        if (line.msg === 'browsermcp daemon listening') {
          clearTimeout(timer);
          warnIfSlow(args, started, 'listen');
          resolve(line.address as string);
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited early (${code}): ${stderr}`));
    });
  });
  return { child, address, lines, stderr: () => stderr };
}

/**
 * Runs the built CLI to its end. One still running after 19 s (just inside a test's 20 s) is killed, and the failure
 * says what it printed rather than only that the test timed out.
 */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the package first (pnpm --filter @browsermcp/daemon build)`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the daemon CLI (${args.join(' ')}) did not end within 19 s; stdout: ${stdout.slice(-2000)} stderr: ${stderr.slice(-2000)}`));
    }, 19_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('close', (code) => {
      clearTimeout(timer);
      warnIfSlow(args, started, 'end');
      resolve({ code, stdout, stderr });
    });
  });
}
