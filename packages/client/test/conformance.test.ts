import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// @modelcontextprotocol/conformance needs Node ≥ 22: run through the npm `node@22` package (cached by npx after the
// first run). It starts its scenario server on loopback and runs our client (the ESM build) against it.
const run = promisify(execFile);
const CLIENT = fileURLToPath(new URL('./conformance-client.mjs', import.meta.url));

async function scenario(name: string): Promise<string> {
  const { stdout, stderr } = await run(
    'npx',
    ['-y', '-p', 'node@22', '-p', '@modelcontextprotocol/conformance@0.1.16', 'conformance', 'client', '--command', `node ${CLIENT}`, '--scenario', name],
    { timeout: 240_000, maxBuffer: 10 * 1024 * 1024, env: { ...process.env, npm_config_loglevel: 'error' } },
  ).catch((e: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`conformance ${name} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  });
  return stdout + stderr;
}

describe('@modelcontextprotocol/conformance client scenarios', () => {
  it('initialize', async () => {
    const out = await scenario('initialize');
    expect(out).toMatch(/\[mcp-client-initialization\s*\].*SUCCESS/);
    expect(out).toContain('OVERALL: PASSED');
  }, 300_000);

  it('tools_call', async () => {
    const out = await scenario('tools_call');
    expect(out).toMatch(/\[tool-add-numbers\s*\].*SUCCESS/);
    expect(out).toContain('OVERALL: PASSED');
  }, 300_000);

  it('sse-retry: resumes with GET and Last-Event-ID after the retry time', async () => {
    const out = await scenario('sse-retry');
    for (const check of ['client-sse-graceful-reconnect', 'client-sse-retry-timing', 'client-sse-last-event-id']) {
      expect(out).toMatch(new RegExp(`\\[${check}\\s*\\].*SUCCESS`));
    }
    expect(out).toContain('OVERALL: PASSED');
  }, 300_000);
});
