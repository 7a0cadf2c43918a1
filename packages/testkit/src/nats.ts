import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's nats-server (2.9), as .ci/run installs it (in /usr/sbin, which a user's PATH may lack); NATS_SERVER overrides. */
export const NATS_SERVER = process.env.NATS_SERVER ?? (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server');

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Waits until the server greets a client (its INFO line), not only until its port is open: a server that has opened
 * its port may still be setting up JetStream, and a test's daemons would wait on it while their own timers run.
 */
async function waitForGreeting(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}`);
    const greeted = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1');
      socket.setTimeout(Math.max(deadline - Date.now(), 1), () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString('latin1').startsWith('INFO '));
      });
      socket.once('error', () => resolve(false));
    });
    if (greeted) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nats-server did not greet a client on ${port} within 30 s`);
}

/**
 * A nats-server of the test's own, with JetStream and a temp store, on a free loopback port. `restart` stops it and
 * starts it again on the same port and store (what a NATS restart looks like to the daemons).
 */
export class NatsServer {
  private child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly jetstream: boolean,
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /**
   * `jetstream: false` starts one without JetStream, which a cluster cannot use. `config` is the server's
   * configuration (accounts, users, TLS); without it, anyone may connect.
   */
  static async start({ jetstream = true, config }: { jetstream?: boolean; config?: string } = {}): Promise<NatsServer> {
    const dir = mkdtempSync(join(tmpdir(), 'bmcp-nats-'));
    // max_payload above the 1 MB default: a snapshot of a big page crosses instances in one message.
    writeFileSync(join(dir, 'nats.conf'), config ?? 'max_payload: 8MB\n');
    const server = new NatsServer(await freePort(), dir, jetstream);
    await server.spawn();
    return server;
  }

  private async spawn(): Promise<void> {
    const store = this.jetstream ? ['-js', '-sd', join(this.dir, 'store')] : [];
    const child = spawn(NATS_SERVER, ['-c', join(this.dir, 'nats.conf'), '-a', '127.0.0.1', '-p', String(this.port), ...store], {
      // BMCP_NATS_LOG=1 shows the server's log (permission violations among it) when a test needs looking into.
      stdio: process.env.BMCP_NATS_LOG ? ['ignore', 'inherit', 'inherit'] : 'ignore',
    });
    this.child = child;
    await waitForGreeting(this.port, child);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.spawn();
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
