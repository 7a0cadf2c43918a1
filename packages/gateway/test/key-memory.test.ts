import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hs256Verifier, signToken, startDaemon } from '@browsermcp/daemon';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { modernClient, startGateway, text } from './helpers.js';

// One key's tabs hold memory together, across its sessions and its browser states (--max-key-memory): past the limit
// the biggest is closed and its agent told why; another key's tabs are not its business.
let server: FixtureServer;
const KEYS = ['key-of-alice-0123456789abcdef', 'key-of-bob-0123456789abcdefgh'];
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A page keeps `mb` MB in a buffer (what its tab holds, as the daemon reads it: heap and buffers). */
const hold = (mb: number) => `() => { globalThis.held = new Uint8Array(${mb} * 1024 * 1024).fill(1); return held.length; }`;

beforeAll(async () => {
  server = await startFixtureServer();
});

afterAll(async () => {
  await server?.close();
});

it("closes the biggest of one key's tabs once they hold more than --max-key-memory together, a browser state's among them, and no other key's", async () => {
  const gw = await startGateway(['--api-key', KEYS.join(','), '--max-key-memory', '256']);
  try {
    await overTheLimit(gw);
  } finally {
    await gw.close();
  }
});

it('counts the keys of a gateway apart on a remote daemon too (--max-key-memory set there): the gateway sends a label of each key', async () => {
  const secret = 'a-test-secret-that-is-at-least-32-bytes-long';
  const daemon = await startDaemon({
    host: '127.0.0.1',
    port: 0,
    local: { outputDir: join(tmpdir(), 'bmcp-key-memory-test'), headless: true, maxKeyMemoryMb: 256 },
    verifier: hs256Verifier(secret),
  });
  const token = await signToken({ userId: 'relay', secret });
  const gw = await startGateway(['--api-key', KEYS.join(','), '--daemon-url', `${daemon.address.replace(/^http/, 'ws')}/mcp`, '--daemon-token', token]);
  try {
    await overTheLimit(gw);
  } finally {
    await gw.close();
    await daemon.close();
  }
});

/** Alice passes the limit with a tab of her default state and one of a browser state; Bob, alone under it, does not. */
async function overTheLimit(gw: RunningHttpGateway): Promise<void> {
  const [alice, bob] = await Promise.all([modernClient(gw.url, KEYS[0]!), modernClient(gw.url, KEYS[1]!)]);
  type Client = typeof alice;
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${text(result)}`);
    return text(result);
  };
  // Bob's tab alone holds 200 MB: under the limit.
  await call(bob, 'browser_navigate', { url: server.url('/index.html?bob') });
  await call(bob, 'browser_evaluate', { function: hold(200) });
  // Alice: 100 MB in her default state's tab, 200 MB in a browser state's: 300 MB together.
  await call(alice, 'browser_navigate', { url: server.url('/index.html?alice') });
  await call(alice, 'browser_evaluate', { function: hold(100) });
  const handle = /bs_[A-Za-z0-9_-]{32}/.exec(await call(alice, 'browser_state_open', {}))![0];
  await call(alice, 'browser_navigate', { url: server.url('/index.html?state'), browser: handle });
  await call(alice, 'browser_evaluate', { function: hold(200), browser: handle });

  // Tabs are read every 2 s: the state's tab, the biggest, is closed, and the state's next answer says why.
  let answer = '';
  for (let i = 0; i < 60 && !answer.includes('--max-key-memory'); i++) {
    await sleep(250);
    answer = await call(alice, 'browser_tabs', { action: 'list', browser: handle });
  }
  expect(answer).toMatch(
    /The tab with http:\/\/[^ ]+\/index\.html\?state was closed: its page held 2\d\d MB of memory and this key's tabs together 3\d\d MB, past the limit of 256 MB for one key's tabs across its sessions and browser states \(--max-key-memory\)/,
  );
  expect(answer).toContain('No open tabs');
  // A few readings later, Alice's other tab and Bob's still hold what they held.
  await sleep(4500);
  expect(await call(alice, 'browser_evaluate', { function: '() => held.length' })).toContain(String(100 * MB));
  expect(await call(bob, 'browser_evaluate', { function: '() => held.length' })).toContain(String(200 * MB));
  await Promise.all([alice.close(), bob.close()]);
}
