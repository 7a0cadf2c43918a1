import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hs256Verifier, signToken, startDaemon, type RunningDaemon } from '@browsermcp/daemon';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway, text } from './helpers.js';
import { startPersonRig } from './scenarios/person-rig.js';

// The @playwright/mcp flags that shape answers and waits, each observed through the gateway with the SDK client, the
// same in every browser: the embedded daemon's, the person's through the extension, and a remote daemon's
// (--daemon-url): the settings travel with each session.
// (--secrets is a scenario: it runs in the person's browser too.)

const FLAGS = [
  '--snapshot-mode',
  'none',
  '--snapshot-boxes',
  '--image-responses',
  'omit',
  '--console-level',
  'error',
  '--timeout-action',
  '300',
  '--timeout-navigation',
  '1500',
  '--timeout-settle',
  '0',
  '--test-id-attribute',
  'data-zone',
  '--caps',
  'testing',
  '--codegen',
  'python',
  '--snapshot-max-chars',
  '3000',
  '--blocked-origins',
  'blocked.localhost',
];
const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';

let server: FixtureServer;
let daemon: RunningDaemon;
beforeAll(async () => {
  [server, daemon] = await Promise.all([
    startFixtureServer(),
    startDaemon({ host: '127.0.0.1', port: 0, local: { outputDir: join(tmpdir(), 'bmcp-flags-daemon'), headless: true }, verifier: hs256Verifier(SECRET) }),
  ]);
});
afterAll(async () => {
  await daemon?.close();
  await server?.close();
});

/** A gateway with FLAGS in each mode: its own browser, the person's (the extension, headless here), a remote daemon's. */
const MODES: Array<[string, () => Promise<{ gw: RunningHttpGateway; close(): Promise<void> }>]> = [
  [
    'embedded',
    async () => {
      const gw = await startGateway(FLAGS);
      return { gw, close: () => gw.close() };
    },
  ],
  [
    'through --extension',
    async () => {
      const rig = await startPersonRig({ headless: true, flags: FLAGS });
      return { gw: rig.gw, close: () => rig.close() };
    },
  ],
  [
    'through --daemon-url',
    async () => {
      const gw = await startGateway([
        ...FLAGS,
        '--daemon-url',
        `${daemon.address.replace(/^http/, 'ws')}/mcp`,
        '--daemon-token',
        await signToken({ userId: 'flags', secret: SECRET }),
      ]);
      return { gw, close: () => gw.close() };
    },
  ],
];

/** A mode's gateway and client, started once for the file. */
interface Running {
  mode: string;
  client: Client;
  close(): Promise<void>;
}
type Call = (name: string, args?: Record<string, unknown>) => ReturnType<Client['callTool']>;

// The three modes side by side: most of each check is waiting on a browser or a deadline, so running the modes
// together costs little more than one. Each mode's client still makes the same calls in the same order as before.
let running: Running[] = [];
beforeAll(async () => {
  const started = await Promise.allSettled(
    MODES.map(async ([mode, start]) => {
      const { gw, close } = await start();
      const client = await connectClient(gw, 'flags').catch(async (err: unknown) => {
        await close();
        throw err;
      });
      return { mode, client, close };
    }),
  );
  running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
});
afterAll(async () => {
  await Promise.all(
    running.map(async ({ client, close }) => {
      await client.close();
      await close();
    }),
  );
});

/**
 * The test body in every mode, each failure naming its mode. `oneByOne` for a check that times the page (a loaded
 * machine would stretch it); otherwise the modes run at once.
 */
function inEachMode(check: (call: Call) => Promise<void>, options: { oneByOne?: boolean } = {}): () => Promise<void> {
  const one = async ({ mode, client }: Running) => {
    const call: Call = (name, args = {}) => client.callTool({ name, arguments: args });
    try {
      await check(call);
    } catch (err) {
      if (err instanceof Error) err.message = `tool flags (${mode}): ${err.message}`;
      throw err;
    }
  };
  return async () => {
    expect(running).toHaveLength(MODES.length);
    const results: Array<PromiseSettledResult<void>> = [];
    if (options.oneByOne) for (const r of running) results.push(...(await Promise.allSettled([one(r)])));
    else results.push(...(await Promise.allSettled(running.map(one))));
    // Every mode runs to its end, and the first failure is the test's.
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  };
}

describe('tool flags (embedded, through --extension, through --daemon-url)', () => {
  it(
    '--snapshot-mode none: actions answer without a snapshot; browser_snapshot still gives one, with boxes',
    inEachMode(async (call) => {
      const nav = text(await call('browser_navigate', { url: server.url('/index.html') }));
      expect(nav).not.toContain('### Snapshot');
      const clicked = text(await call('browser_click', { target: '#counter' }));
      expect(clicked).not.toContain('### Snapshot');
      // --codegen python: the answer carries the line that replays the click.
      expect(clicked).toContain('### Ran Playwright code\n```python\npage.get_by_role("button", name="Click me").click()\n```');
      expect(text(await call('browser_snapshot'))).toMatch(/button "Clicked 1 times" \[active\] \[ref=e\d+\] \[box=\d+,\d+,\d+,\d+\]/);
    }),
  );

  it(
    '--image-responses omit: a screenshot answers with text alone',
    inEachMode(async (call) => {
      const shot = await call('browser_take_screenshot');
      expect((shot.content as Array<{ type: string }>).map((c) => c.type)).toEqual(['text']);
    }),
  );

  it(
    '--console-level error: answers carry errors only; the tool defaults to it',
    inEachMode(async (call) => {
      const nav = text(await call('browser_navigate', { url: server.url('/console.html') }));
      expect(nav).toContain('[ERROR] something failed');
      expect(nav).not.toContain('[LOG] hello from log');
      expect(text(await call('browser_console_messages'))).not.toContain('[WARN] careful');
    }),
  );

  it(
    '--timeout-action 300: a covered element fails fast, saying what covers it',
    inEachMode(async (call) => {
      await call('browser_navigate', { url: server.url('/covered.html') });
      const started = Date.now();
      const clicked = await call('browser_click', { target: '#under' });
      expect(clicked.isError).toBe(true);
      expect(text(clicked)).toContain('another element would receive the click');
      expect(Date.now() - started).toBeLessThan(5_000);
    }),
  );

  it(
    '--timeout-settle 0: an action answers without waiting for the page to go quiet',
    inEachMode(
      async (call) => {
        await call('browser_navigate', { url: server.url('/busy-after-click.html') });
        expect((await call('browser_click', { target: '#start' })).isError).toBeFalsy();
        // The page changes every 2 ms for 3 s from the click on: with the default, the click would answer only after its whole
        // 1000 ms settle cap.
        const since = Number(
          text(await call('browser_evaluate', { function: "() => 'since=' + Math.round(performance.now() - window.clickedAt)" })).match(/since=(\d+)/)?.[1],
        );
        expect(since).toBeLessThan(1000);
      },
      { oneByOne: true },
    ),
  );

  it(
    '--timeout-navigation 1500: a page that does not answer fails the navigation with the reason, and the call ends then',
    inEachMode(async (call) => {
      // The page answers after 8 s: the call must end well before it does (its answer once waited for the page's
      // title until the slow document came).
      const started = Date.now();
      const slow = await call('browser_navigate', { url: server.url('/api/slow?ms=8000') });
      expect(slow.isError).toBe(true);
      expect(text(slow)).toMatch(/timeout|timed out/i);
      expect(Date.now() - started, 'the call waited for the slow page').toBeLessThan(6_000);
    }),
  );

  it(
    '--test-id-attribute data-zone: generated locators read that attribute',
    inEachMode(async (call) => {
      await call('browser_navigate', { url: server.url('/drop.html') });
      await call('browser_evaluate', { function: "() => document.querySelector('#zone').setAttribute('data-zone', 'dropper')" });
      expect(text(await call('browser_generate_locator', { target: '#zone' }))).toContain('page.get_by_test_id("dropper")');
    }),
  );

  it(
    "--snapshot-max-chars 3000: a big page's snapshot is cut",
    inEachMode(async (call) => {
      await call('browser_navigate', { url: server.url('/table?rows=400') });
      const snap = text(await call('browser_snapshot'));
      expect(snap).toMatch(/cut|truncated|more/i);
      expect(snap.length).toBeLessThan(6000);
    }),
  );

  it(
    '--blocked-origins: a navigation to a blocked host is refused, naming the flag',
    inEachMode(async (call) => {
      const refused = await call('browser_navigate', { url: `${server.blockedOrigin}/index.html` });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain('--blocked-origins');
    }),
  );

  it(
    '--caps testing: its tools are there, and others are not',
    inEachMode(async (call) => {
      expect(text(await call('browser_generate_locator', { target: 'body' }))).not.toMatch(/unknown tool/i);
      await expect(call('browser_pdf_save')).rejects.toThrow(/Unknown tool/);
    }),
  );
});
