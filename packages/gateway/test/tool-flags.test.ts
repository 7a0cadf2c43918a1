import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { connectClient, startGateway, text } from './helpers.js';

// The @playwright/mcp flags that shape answers and waits, each observed through the gateway with the SDK client
// (--secrets is a scenario: it runs in the person's browser too).

let gw: RunningHttpGateway;
let server: FixtureServer;
let client: Client;

beforeAll(async () => {
  [gw, server] = await Promise.all([
    startGateway([
      '--snapshot-mode', 'none',
      '--snapshot-boxes',
      '--image-responses', 'omit',
      '--console-level', 'error',
      '--timeout-action', '300',
      '--timeout-navigation', '1500',
      '--test-id-attribute', 'data-zone',
      '--caps', 'testing',
      '--codegen', 'python',
    ]),
    startFixtureServer(),
  ]);
  client = await connectClient(gw, 'flags');
});
afterAll(async () => {
  await client?.close();
  await gw?.close();
  await server?.close();
});

const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });

describe('tool flags', () => {
  it('--snapshot-mode none: actions answer without a snapshot; browser_snapshot still gives one, with boxes', async () => {
    const nav = text(await call('browser_navigate', { url: server.url('/index.html') }));
    expect(nav).not.toContain('### Snapshot');
    const clicked = text(await call('browser_click', { target: '#counter' }));
    expect(clicked).not.toContain('### Snapshot');
    // --codegen python: the answer carries the line that replays the click.
    expect(clicked).toContain('### Ran Playwright code\n```python\npage.get_by_role("button", name="Click me").click()\n```');
    expect(text(await call('browser_snapshot'))).toMatch(/button "Clicked 1 times" \[active\] \[ref=e\d+\] \[box=\d+,\d+,\d+,\d+\]/);
  });

  it('--image-responses omit: a screenshot answers with text alone', async () => {
    const shot = await call('browser_take_screenshot');
    expect((shot.content as Array<{ type: string }>).map((c) => c.type)).toEqual(['text']);
  });

  it('--console-level error: answers carry errors only; the tool defaults to it', async () => {
    const nav = text(await call('browser_navigate', { url: server.url('/console.html') }));
    expect(nav).toContain('[ERROR] something failed');
    expect(nav).not.toContain('[LOG] hello from log');
    expect(text(await call('browser_console_messages'))).not.toContain('[WARN] careful');
  });

  it('--timeout-action 300: a covered element fails fast, saying what covers it', async () => {
    await call('browser_navigate', { url: server.url('/covered.html') });
    const started = Date.now();
    const clicked = await call('browser_click', { target: '#under' });
    expect(clicked.isError).toBe(true);
    expect(text(clicked)).toContain('another element would receive the click');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('--timeout-navigation 1500: a page that does not answer fails the navigation with the reason', async () => {
    const slow = await call('browser_navigate', { url: server.url('/api/slow?ms=4000') });
    expect(slow.isError).toBe(true);
    expect(text(slow)).toMatch(/timeout|timed out/i);
  });

  it('--test-id-attribute data-zone: generated locators read that attribute', async () => {
    await call('browser_navigate', { url: server.url('/drop.html') });
    await call('browser_evaluate', { function: "() => document.querySelector('#zone').setAttribute('data-zone', 'dropper')" });
    expect(text(await call('browser_generate_locator', { target: '#zone' }))).toContain('page.get_by_test_id("dropper")');
  });
});
