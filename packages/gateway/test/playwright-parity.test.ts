import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

// The installed @playwright/mcp (a devDependency of this test alone) is the reference: every tool and parameter of
// it must exist here, apart from the few left out on purpose (below, with the reason; the README's compatibility
// table says the same). Its next release shows up here as a failing test.

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const PLAYWRIGHT_MCP = join(dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js');

/** Tools of @playwright/mcp that have no place here, and why. */
export const LEFT_OUT: Record<string, string> = {
  browser_resume: "Playwright's script debugger: there is no paused script here",
  browser_annotate: "opens Playwright's own dashboard app",
  browser_run_code_unsafe: 'runs Playwright code against a Playwright page',
  browser_start_tracing: "Playwright's trace format",
  browser_stop_tracing: "Playwright's trace format",
  browser_start_video: "Playwright's video recording (browser_gif_start records the session as a GIF)",
  browser_stop_video: "Playwright's video recording (browser_gif_stop)",
  browser_video_chapter: "Playwright's video recording",
  browser_video_show_actions: "Playwright's video recording",
  browser_video_hide_actions: "Playwright's video recording",
  browser_start_recording: "Playwright's recorder",
  browser_stop_recording: "Playwright's recorder",
};

async function listTools(command: string, args: string[]): Promise<Map<string, string[]>> {
  const client = new Client({ name: 'parity', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  try {
    const { tools } = await client.listTools();
    return new Map(tools.map((t) => [t.name, Object.keys((t.inputSchema.properties as Record<string, unknown> | undefined) ?? {})]));
  } finally {
    await client.close();
  }
}

describe('a superset of @playwright/mcp', () => {
  it('has every tool and parameter of the installed @playwright/mcp, apart from those left out on purpose', async () => {
    const [theirs, ours] = await Promise.all([
      listTools(process.execPath, [PLAYWRIGHT_MCP, '--caps', 'vision,pdf,devtools,testing', '--headless', '--executable-path', '/usr/bin/chromium']),
      listTools(process.execPath, [CLI, '--headless', '--caps', 'vision,pdf,gif,devtools,testing']),
    ]);
    expect(theirs.size).toBeGreaterThan(30);
    const missing: string[] = [];
    for (const [name, params] of theirs) {
      if (name in LEFT_OUT) continue;
      const here = ours.get(name);
      if (!here) missing.push(name);
      else for (const p of params) if (!here.includes(p)) missing.push(`${name}.${p}`);
    }
    expect(missing).toEqual([]);
    // What is left out is still theirs: an entry for a tool they dropped is stale.
    for (const name of Object.keys(LEFT_OUT)) expect(theirs.has(name), `${name} is no longer in @playwright/mcp`).toBe(true);
  });
});

/** The long flags a --help lists. */
function flagsOf(command: string, args: string[]): Set<string> {
  const help = execFileSync(command, [...args, '--help'], { encoding: 'utf8' });
  return new Set([...help.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!));
}

/** @playwright/mcp's flags refused here, with the words the refusal must name (what to use instead). */
const REFUSED_FLAGS: Record<string, { value: string; names: RegExp }> = {
  '--endpoint': { value: 'ws://127.0.0.1:1/x', names: /--cdp-endpoint/ },
  '--init-page': { value: 'setup.ts', names: /--init-script/ },
};

describe("@playwright/mcp's command line", () => {
  it('has every flag of the installed @playwright/mcp: accepted, or refused with the reason and what to use instead', () => {
    const [theirs, ours] = [flagsOf(process.execPath, [PLAYWRIGHT_MCP]), flagsOf(process.execPath, [CLI])];
    expect(theirs.size).toBeGreaterThan(50);
    // A flag of a new release that is not handled here fails until it is accepted or refused.
    expect([...theirs].filter((f) => !ours.has(f))).toEqual([]);
    for (const [flag, { value, names }] of Object.entries(REFUSED_FLAGS)) {
      expect(theirs.has(flag), `${flag} is no longer in @playwright/mcp`).toBe(true);
      const run = spawnSync(process.execPath, [CLI, flag, value], { encoding: 'utf8', timeout: 20_000 });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toMatch(names);
    }
  });
});
