import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpGateway } from '../src/index.js';
import { startGateway } from './helpers.js';

// Third-party MCP tools that need Node ≥ 22: run through the npm `node@22` package (cached by npx after the first run).
const run = promisify(execFile);
const EXPECTED_FAILURES = fileURLToPath(new URL('./conformance-expected-failures.yml', import.meta.url));
const npx = (args: string[]) =>
  run('npx', ['-y', '-p', 'node@22', ...args], { timeout: 240_000, maxBuffer: 20 * 1024 * 1024, env: { ...process.env, npm_config_loglevel: 'error' } });

let gw: RunningHttpGateway;
beforeAll(async () => {
  // Neither tool sends an Authorization header from its CLI; loopback without a key is what --no-auth is for.
  // Every capability on, so the Inspector's --strict schema check sees every tool.
  gw = await startGateway(['--no-auth', '--caps', 'vision,pdf,gif,devtools,testing']);
});
afterAll(async () => {
  await gw?.close();
});

describe('third-party MCP clients', () => {
  // The conformance run and the first Inspector test side by side: their sessions are their own, and each waits mostly
  // on npx. The modern-era test counts the gateway's sessions, so it runs after them, alone.
  it.concurrent('passes the applicable @modelcontextprotocol/conformance server scenarios', async ({ expect }) => {
    const { stdout } = await npx([
      '-p',
      '@modelcontextprotocol/conformance@0.1.16',
      'conformance',
      'server',
      '--url',
      `${gw.url}/mcp`,
      '--expected-failures',
      EXPECTED_FAILURES,
    ]);
    expect(stdout).toContain('✓ server-initialize');
    expect(stdout).toContain('✓ tools-list');
    expect(stdout).toContain('✓ dns-rebinding-protection');
    expect(stdout).toContain('Baseline check passed');
  }, 300_000);

  it.concurrent('is listed (every input schema passing its --strict check) and called by the MCP Inspector CLI', async ({ expect }) => {
    const inspector = ['-p', '@modelcontextprotocol/inspector@2.12.0', 'mcp-inspector', '--cli', `${gw.url}/mcp`, '--transport', 'http'];
    // The two processes at once: each its own session, and most of their time is npx and Node starting.
    const [listed, called] = await Promise.all([
      npx([...inspector, '--method', 'tools/list', '--strict']),
      npx([...inspector, '--method', 'tools/call', '--tool-name', 'browser_evaluate', '--tool-arg', 'function=() => 6 * 7']),
    ]);
    const list = JSON.parse(listed.stdout) as { tools: Array<{ name: string }> };
    expect(list.tools.map((t) => t.name)).toContain('browser_snapshot');
    // --strict: every tool's input schema is portable (a finding is printed as "Warning: tool …" or "Error: tool …").
    expect(listed.stderr).not.toMatch(/(Warning|Error): tool/);
    expect(list.tools.length).toBeGreaterThan(50);
    const call = JSON.parse(called.stdout) as { content: Array<{ text: string }> };
    expect(call.content[0]!.text).toContain('### Result\n42');
  }, 300_000);

  it('speaks 2026-07-28 with the Inspector CLI (--protocol-era modern): two processes, one browser state, no session', async () => {
    const inspector = [
      '-p',
      '@modelcontextprotocol/inspector@2.12.0',
      'mcp-inspector',
      '--cli',
      `${gw.url}/mcp`,
      '--transport',
      'http',
      '--protocol-era',
      'modern',
    ];
    const sessionsBefore = gw.registry.size;
    await npx([
      ...inspector,
      '--method',
      'tools/call',
      '--tool-name',
      'browser_evaluate',
      '--tool-arg',
      "function=() => { document.title = 'set by the first process'; }",
    ]);
    // Another process, another request: the same (default) browser state, whichever request holds it.
    const call = JSON.parse(
      (await npx([...inspector, '--method', 'tools/call', '--tool-name', 'browser_evaluate', '--tool-arg', 'function=() => document.title'])).stdout,
    ) as {
      content: Array<{ text: string }>;
    };
    expect(call.content[0]!.text).toContain('set by the first process');
    expect(gw.registry.size).toBe(sessionsBefore);
  }, 300_000);
});
