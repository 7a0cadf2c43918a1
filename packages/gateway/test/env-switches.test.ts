import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applySettingSources, ConfigError } from '@browsermcp/daemon';
import { testChromePath } from '@browsermcp/testkit';
import { buildProgram, resolveConfig } from '../src/index.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The gateway's command line read with only `env` set (commander reads process.env as it parses). */
function configWith(env: Record<string, string>, argv: string[] = ['--port', '0']) {
  vi.unstubAllEnvs();
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  return resolveConfig(buildProgram().exitOverride().parse(argv, { from: 'user' }), {});
}

describe("the switches' environment variables", () => {
  const switches = buildProgram().options.filter((o) => !o.required && !o.optional && o.envVar);

  it('has a variable for every switch, the ones this issue names among them', () => {
    const names = switches.map((o) => o.envVar);
    for (const name of [
      'BROWSERMCP_NO_AUTH',
      'BROWSERMCP_ALLOW_UNRESTRICTED_FILE_ACCESS',
      'BROWSERMCP_SHARED_BROWSER_CONTEXT',
      'BROWSERMCP_NO_SANDBOX',
      'BROWSERMCP_HEADLESS',
    ]) {
      expect(names).toContain(name);
    }
  });

  it.each(switches.map((o) => [o.envVar!, o] as const))('%s means what it says, both ways, and refuses anything else', (name, option) => {
    const attribute = option.attributeName();
    // The sources alone (the CLI's first step after parsing), so that a mode refusal cannot hide what the variable did.
    const read = (text: string) => {
      vi.stubEnv(name, text);
      const program = buildProgram().exitOverride().parse([], { from: 'user' });
      applySettingSources(program);
      return program.getOptionValue(attribute) as unknown;
    };
    const pair = switches.filter((o) => o.attributeName() === attribute).length > 1;
    for (const yes of ['true', '1', 'yes', 'ON']) expect(read(yes), `${name}=${yes}`).toBe(!option.negate);
    for (const no of ['false', '0', 'no', ' off ']) {
      // A no leaves a lone switch off (its own default); a pair's no is its other side (BROWSERMCP_SANDBOX=false is --no-sandbox).
      const expected = pair ? option.negate : option.negate ? true : undefined;
      expect(read(no), `${name}=${no}`).toBe(expected);
    }
    for (const bad of ['maybe', '', 'enabled']) {
      expect(() => read(bad), `${name}=${JSON.stringify(bad)}`).toThrow(ConfigError);
      expect(() => read(bad)).toThrow(`${name}="${bad}" is not a yes or no`);
    }
  });

  it('keeps auth on and file:// closed when their variables say false or 0', () => {
    expect(configWith({ BROWSERMCP_NO_AUTH: 'false' }).noAuth).toBe(false);
    expect(configWith({ BROWSERMCP_NO_AUTH: '0' }).noAuth).toBe(false);
    expect(configWith({ BROWSERMCP_NO_AUTH: 'true' }).noAuth).toBe(true);
    expect(configWith({ BROWSERMCP_ALLOW_UNRESTRICTED_FILE_ACCESS: 'false' }).allowUnrestrictedFileAccess).toBe(false);
    expect(configWith({ BROWSERMCP_ALLOW_UNRESTRICTED_FILE_ACCESS: '0' }).allowUnrestrictedFileAccess).toBe(false);
    expect(configWith({ BROWSERMCP_ALLOW_UNRESTRICTED_FILE_ACCESS: 'yes' }).allowUnrestrictedFileAccess).toBe(true);
    expect(configWith({ BROWSERMCP_SHARED_BROWSER_CONTEXT: 'off' }).sharedBrowserContext).toBe(false);
    expect(configWith({ BROWSERMCP_NO_SANDBOX: 'false' }).sandbox).toBe(true);
    expect(configWith({ BROWSERMCP_SANDBOX: 'false' }).sandbox).toBe(false);
    // A flag on the command line wins over its variable, as for every other setting.
    expect(configWith({ BROWSERMCP_NO_AUTH: 'false' }, ['--port', '0', '--no-auth']).noAuth).toBe(true);
  });

  it('a gateway started with BROWSERMCP_NO_AUTH=false asks for a key; BROWSERMCP_NO_AUTH=sure does not start', async () => {
    const started = spawn(process.execPath, [CLI, '--port', '0', '--headless', '--executable-path', testChromePath()], {
      env: { ...process.env, BROWSERMCP_NO_AUTH: 'false' },
    });
    try {
      let banner = '';
      const url = await new Promise<string>((resolve, reject) => {
        started.stderr.on('data', (d: Buffer) => {
          banner += d.toString();
          const found = /MCP \(Streamable HTTP\)\s+(\S+)/.exec(banner)?.[1];
          if (found && banner.includes('API key')) resolve(found);
        });
        started.once('exit', (code) => reject(new Error(`gateway exited (${code}): ${banner}`)));
      });
      expect(banner).not.toContain('Auth                   none');
      const local = new URL(url);
      local.hostname = '127.0.0.1';
      const answer = await fetch(local, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
      expect(answer.status).toBe(401);
    } finally {
      started.kill('SIGKILL');
    }
    const refused = spawn(process.execPath, [CLI, '--port', '0'], { env: { ...process.env, BROWSERMCP_NO_AUTH: 'sure' } });
    let stderr = '';
    refused.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => refused.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('BROWSERMCP_NO_AUTH="sure" is not a yes or no');
    expect(stderr).toContain('--no-auth');
  });
});
