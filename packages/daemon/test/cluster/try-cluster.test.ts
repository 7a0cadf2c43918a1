import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { alive, freePort, processTree } from '@browsermcp/testkit';
import { expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../../../scripts/try-cluster.mjs', import.meta.url));

it('scripts/try-cluster.mjs starts nats-server and daemons that form one cluster, and stops them all on Ctrl-C', async () => {
  const child = spawn(process.execPath, [SCRIPT, '--daemons', '2', '--port', '0', '--nats-port', String(await freePort()), '--no-browser']);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (data: Buffer) => {
      out += data.toString();
      if (out.includes('Ctrl-C stops')) resolve();
    });
    child.stderr.on('data', (data: Buffer) => (out += data.toString()));
    child.once('exit', (code) => reject(new Error(`try-cluster exited (${code}): ${out}`)));
  });
  const daemons = [...out.matchAll(/daemon (d\d): (http:\/\/\S+)/g)].map((m) => ({ instanceId: m[1], address: m[2] }));
  expect(daemons.map((d) => d.instanceId)).toEqual(['d1', 'd2']);
  for (const daemon of daemons) {
    const health = (await (await fetch(`${daemon.address}/health`)).json()) as { cluster?: unknown };
    expect(health.cluster).toEqual({ instanceId: daemon.instanceId, instances: 2, browsers: 0 });
  }
  expect(out).toMatch(/browsermcp-gateway --daemon-url ws:\/\/127\.0\.0\.1:\d+\/mcp,ws:\/\/127\.0\.0\.1:\d+\/mcp --daemon-token ey/);

  const tree = processTree(child.pid!);
  expect(tree.length).toBeGreaterThanOrEqual(4); // the script, nats-server, two daemons
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(tree.filter(alive)).toEqual([]);
});
