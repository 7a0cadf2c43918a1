import { createHash } from 'node:crypto';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EmbeddedBackend, RunningHttpGateway } from '../src/index.js';
import { startGateway, text } from './helpers.js';

// A client that opens a new MCP session per call (as hosted chat connectors do) finds its page and login where the
// last session left them, with --keep-browser-state; another key's sessions do not.
let server: FixtureServer;
let gw: RunningHttpGateway;
const KEYS = ['key-of-alice-0123456789abcdef', 'key-of-bob-0123456789abcdefgh'];

beforeAll(async () => {
  server = await startFixtureServer();
  // 0.05 minutes: the state outlives its last session by 3 s.
  gw = await startGateway(['--keep-browser-state', '0.05', '--api-key', KEYS.join(',')]);
});

afterAll(async () => {
  await gw?.close();
  await server?.close();
});

/** One MCP session with `key`: runs `calls` in order, then ends the session (DELETE), as a per-call client does. */
async function session(key: string, calls: Array<[string, Record<string, unknown>]>): Promise<string[]> {
  const client = new Client({ name: 'per-call-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  const out: string[] = [];
  for (const [name, args] of calls) out.push(text(await client.callTool({ name, arguments: args })));
  await transport.terminateSession();
  await client.close();
  return out;
}

const router = () => (gw.backend as EmbeddedBackend).router;
// biome-ignore lint/suspicious/noTemplateCurlyInString: the page's own template literal, evaluated there
const state = '() => `${location.pathname} cookie=${document.cookie} stored=${localStorage.getItem("who")}`';

it('keeps the page, cookies and storage of a key between its sessions, apart from other keys, for the time given', async () => {
  await session(KEYS[0]!, [
    ['browser_navigate', { url: server.url('/index.html') }],
    ['browser_evaluate', { function: '() => { document.cookie = "who=alice; max-age=3600"; localStorage.setItem("who", "alice"); }' }],
  ]);
  // The MCP session ended; its browser state did not.
  expect((await router().stats()).sessions).toBe(1);

  const [again] = await session(KEYS[0]!, [['browser_evaluate', { function: state }]]);
  expect(again).toContain('/index.html cookie=who=alice stored=alice');

  // Another key: a state of its own, fresh.
  const [, other] = await session(KEYS[1]!, [
    ['browser_navigate', { url: server.url('/index.html') }],
    ['browser_evaluate', { function: state }],
  ]);
  expect(other).toContain('/index.html cookie= stored=null');

  // Both kept; once 3 s pass without a session of theirs, both close (their tabs and contexts with them).
  expect((await router().stats()).sessions).toBe(2);
  await expect.poll(async () => (await router().stats()).sessions, { timeout: 15_000, interval: 250 }).toBe(0);
  const [, fresh] = await session(KEYS[0]!, [
    ['browser_navigate', { url: server.url('/index.html') }],
    ['browser_evaluate', { function: state }],
  ]);
  expect(fresh).toContain('/index.html cookie= stored=null');
});

it('lets two sessions of one key use the state at once, and keeps it while either is open', async () => {
  const first = new Client({ name: 'a', version: '1.0.0' });
  const firstTransport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEYS[0]}` } } });
  await first.connect(firstTransport);
  await first.callTool({ name: 'browser_navigate', arguments: { url: server.url('/item/3') } });
  const [seen] = await session(KEYS[0]!, [['browser_evaluate', { function: state }]]);
  expect(seen).toContain('/item/3');
  // The second session ended; the first still holds the state (taking it here makes two holders), so nothing waits
  // to close it.
  const kept = await router().states.take(ownerOf(KEYS[0]!), { id: 'the-test' });
  expect(kept?.holders).toHaveLength(2);
  expect(kept?.idleSince).toBeUndefined();
  await router().states.release(kept!.owner, kept!.handle, 'the-test');
  await firstTransport.terminateSession();
  await first.close();
});

it('refuses --keep-browser-state that cannot apply, naming why', async () => {
  await expect(startGateway(['--keep-browser-state', 'soon'])).rejects.toThrow('--keep-browser-state must be a number of minutes above 0');
  await expect(startGateway(['--keep-browser-state', '5', '--shared-browser-context'])).rejects.toThrow('every session already shares one');
});

/** The owner the gateway records for a key: the SHA-256 its key check computes (never the key itself). */
function ownerOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
