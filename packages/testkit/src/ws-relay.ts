import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A relay process between a browser and a daemon, and what it saw. */
export interface WsRelay {
  /** Where it listens, as the extension would dial it: ws://127.0.0.1:<port>/extension. */
  address: string;
  /** Every frame it carried ("frame to-daemon …", "frame to-browser …") and what it injected, one per line. */
  seen(): string;
  close(): void;
}

/**
 * Starts a relay process (relay/ws-relay.mjs), as an attacker on the machine runs one: it listens where a browser
 * dials, forwards every frame both ways to `target`, and logs them; with `inject`, it also sends that text towards the
 * daemon once the daemon said "authenticated".
 */
export async function startWsRelay(target: string, options: { inject?: string } = {}): Promise<WsRelay> {
  const script = fileURLToPath(new URL('../relay/ws-relay.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, target, ...(options.inject ? [options.inject] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the relay exited (${code}) before it listened`)));
  });
  return { address: `ws://127.0.0.1:${port}/extension`, seen: () => out, close: () => void child.kill() };
}
