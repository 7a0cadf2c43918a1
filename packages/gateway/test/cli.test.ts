import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const run = (args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 20_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );

describe('browsermcp-gateway CLI', () => {
  it('--help lists every flag with its default and environment variable', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    for (const flag of ['--port', '--host', '--headless', '--executable-path', '--cdp-endpoint', '--user-data-dir', '--isolated', '--viewport-size', '--caps', '--shared-browser-context', '--allowed-hosts', '--allowed-origins', '--blocked-origins', '--config', '--output-dir', '--extension', '--daemon-url', '--daemon-port', '--api-key', '--no-auth', '--cors-origins', '--grace-period', '--log-level']) {
      expect(stdout).toContain(flag);
    }
    expect(stdout.replace(/\s+/g, ' ')).toContain('(default: "127.0.0.1", env: BROWSERMCP_HOST)');
  });

  it('exits 2 with the reason for a bad value, from flags, environment or config file', async () => {
    const flag = await run(['--port', 'abc']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--port must be a whole number from 0 to 65535, got "abc"');
    const env = await run([], { BROWSERMCP_VIEWPORT_SIZE: 'huge' });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('--viewport-size must look like 1280x720, got "huge"');
    const noAuth = await run(['--port', '3999', '--host', '0.0.0.0', '--no-auth']);
    expect(noAuth.code).toBe(2);
    expect(noAuth.stderr).toContain('--no-auth is only allowed on a loopback host');
    const unknown = await run(['--teleport']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--teleport'");
    const config = await run(['--config', '/nonexistent/config.json']);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('--config /nonexistent/config.json: cannot read the file (ENOENT)');
  });
});
