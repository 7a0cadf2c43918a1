import { chownSync, linkSync, mkdtempSync, symlinkSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startFixtureServer, type FixtureServer } from '@browsermcp/testkit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserEnvironment, DEFAULT_OUTPUT_DIR, defaultPairingFile } from '@browsermcp/daemon';
import { buildProgram, resolveConfig, type RunningHttpGateway } from '../src/index.js';
import { httpRoots } from '../src/gateway.js';
import { startGateway, text } from './helpers.js';

// Where input files may come from: the client's MCP roots (asked with roots/list, refreshed on list_changed), the
// working directory of a stdio gateway whose client has none, and nothing of a client's own over a non-loopback bind.

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** A project folder with one file in it, as a client's workspace. */
function project(name: string, file: string, contents: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `bmcp-${name}-`)));
  writeFileSync(join(dir, file), contents);
  return dir;
}

const CWD = project('cwd', 'notes.txt', 'from the working directory');
const ROOT_A = project('root-a', 'a.txt', 'from root A');
const ROOT_B = project('root-b', 'b.txt', 'from root B');
const ELSEWHERE = project('elsewhere', 'private.txt', 'not for agents');

let server: FixtureServer;
/** One gateway with --trust-client-roots for the tests of that mode over 2025 and 2026-07-28: one browser start, not two. */
let trusting: RunningHttpGateway;
beforeAll(async () => {
  [server, trusting] = await Promise.all([startFixtureServer(), startGateway(['--trust-client-roots'])]);
});
afterAll(async () => {
  await trusting?.close();
  await server?.close();
});

/** A client that declares roots and answers roots/list with whatever `roots` holds at the time. */
function clientWithRoots(name: string, roots: { current: string[] }): Client {
  const client = new Client({ name, version: '1' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.current.map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })) }));
  return client;
}

function httpClient(gw: RunningHttpGateway, client: Client): Promise<void> {
  return client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${gw.apiKey}` } } }));
}

/** A 2026-07-28 client (the official v2 one, pinned), declaring `roots` when given; counts how often it is asked. */
async function modernClient(gw: RunningHttpGateway, roots: string[] | undefined): Promise<{ client: Client; asked: () => number }> {
  const { Client: ModernClient, StreamableHTTPClientTransport: ModernTransport } = await import('@modelcontextprotocol/client');
  const client = new ModernClient(
    { name: 'modern-roots', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...(roots ? { capabilities: { roots: {} } } : {}) },
  );
  let asked = 0;
  if (roots) {
    client.setRequestHandler('roots/list', async () => {
      asked += 1;
      return { roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })) };
    });
  }
  await client.connect(new ModernTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${gw.apiKey}` } } }));
  // The tests drive both clients through the same small surface (callTool, close).
  return { client: client as unknown as Client, asked: () => asked };
}

/** Opens the form's file chooser and uploads `path`; the answer, and what the page got when it worked. */
async function upload(client: Client, path: string): Promise<{ isError: boolean; text: string; seen?: string }> {
  await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } });
  expect(text(await client.callTool({ name: 'browser_click', arguments: { target: '#upload' } }))).toContain('[File chooser]');
  const result = await client.callTool({ name: 'browser_file_upload', arguments: { paths: [path] } });
  if (result.isError) {
    // Close the chooser, so the next upload starts from a fresh one.
    await client.callTool({ name: 'browser_file_upload', arguments: {} });
    return { isError: true, text: text(result) };
  }
  const seen = await client.callTool({
    name: 'browser_evaluate',
    arguments: { function: "async () => { const f = document.querySelector('#upload').files[0]; return f.name + '|' + (await f.text()); }" },
  });
  return { isError: false, text: text(result), seen: text(seen) };
}

describe('stdio: the working directory, then the client roots', () => {
  it('reads from the working directory while the client names no roots, then from its roots once it names them', async () => {
    const roots = { current: [] as string[] };
    const client = clientWithRoots('stdio-roots', roots);
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '--headless'], cwd: CWD, stderr: 'pipe' }));
    try {
      // No roots from the client: the working directory is the project, and a relative name resolves in it.
      const relative = await upload(client, 'notes.txt');
      expect(relative.text).toContain('Uploaded notes.txt');
      expect(relative.seen).toContain('notes.txt|from the working directory');
      const outside = await upload(client, join(ELSEWHERE, 'private.txt'));
      expect(outside.isError).toBe(true);
      expect(outside.text).toContain(`${join(ELSEWHERE, 'private.txt')} is outside the allowed file roots (${CWD}, `);
      // A name given for a saved file lands there too, as with @playwright/mcp over stdio, and the answer names it.
      const shot = await client.callTool({ name: 'browser_take_screenshot', arguments: { filename: 'shots/form.png' } });
      expect(text(shot)).toContain('Saved the screenshot to shots/form.png');
      expect(readFileSync(join(CWD, 'shots/form.png')).subarray(1, 4).toString()).toBe('PNG');

      // The client names its roots and says they changed: they replace the working directory.
      roots.current = [ROOT_A];
      await client.sendRootsListChanged();
      const fromRoot = await upload(client, 'a.txt');
      expect(fromRoot.seen).toContain('a.txt|from root A');
      const saved = await client.callTool({ name: 'browser_evaluate', arguments: { function: '() => document.title', filename: 'title.txt' } });
      expect(text(saved)).toContain('Saved the result to title.txt');
      expect(readFileSync(join(ROOT_A, 'title.txt'), 'utf8')).toBe('"Form"');
      expect((await upload(client, join(CWD, 'notes.txt'))).isError).toBe(true);

      roots.current = [ROOT_B];
      await client.sendRootsListChanged();
      expect((await upload(client, join(ROOT_B, 'b.txt'))).seen).toContain('b.txt|from root B');
      const stale = await upload(client, join(ROOT_A, 'a.txt'));
      expect(stale.isError).toBe(true);
      expect(stale.text).toContain(`allowed file roots (${ROOT_B}, `);
    } finally {
      await client.close();
    }
  });
});

describe('HTTP on loopback with --trust-client-roots: each client its own roots', () => {
  let gw: RunningHttpGateway;
  beforeAll(() => {
    gw = trusting;
  });

  it("allows a client's root to that client only; a client without roots gets the working directory, as over stdio", async () => {
    const withRoots = clientWithRoots('with-roots', { current: [ROOT_A] });
    const without = new Client({ name: 'without-roots', version: '1' });
    await Promise.all([httpClient(gw, withRoots), httpClient(gw, without)]);
    try {
      expect((await upload(withRoots, join(ROOT_A, 'a.txt'))).seen).toContain('a.txt|from root A');
      expect((await upload(withRoots, 'a.txt')).seen).toContain('a.txt|from root A');
      const other = await upload(without, join(ROOT_A, 'a.txt'));
      expect(other.isError).toBe(true);
      expect(other.text).toContain('is outside the allowed file roots');
      // On this machine with one key (one person owns the gateway), a client that names no roots gets the gateway's
      // working directory (as over stdio, and as @playwright/mcp does over HTTP); a client that names roots gets those.
      expect(other.text).toContain(`is outside the allowed file roots (${process.cwd()}, `);
      expect((await upload(withRoots, join(process.cwd(), 'package.json'))).isError).toBe(true);
    } finally {
      await Promise.all([withRoots.close(), without.close()]);
    }
  });

  it('blocks file:// pages without --allow-unrestricted-file-access', async () => {
    const client = new Client({ name: 'file-url', version: '1' });
    await httpClient(gw, client);
    try {
      const nav = await client.callTool({ name: 'browser_navigate', arguments: { url: pathToFileURL(join(ELSEWHERE, 'private.txt')).href } });
      expect(nav.isError).toBe(true);
      expect(text(nav)).toContain('URLs with the "file:" scheme are not allowed');
    } finally {
      await client.close();
    }
  });
});

describe("HTTP on loopback by default: a client's roots count only inside --file-roots", () => {
  it('refuses a file under a root the client declared outside --file-roots, and under one declared as /; honours one inside', async () => {
    const gw = await startGateway(['--file-roots', ROOT_B]);
    const outside = clientWithRoots('declares-a', { current: [ROOT_A] });
    const everything = clientWithRoots('declares-slash', { current: ['/'] });
    const inside = clientWithRoots('declares-inside', { current: [ROOT_B] });
    try {
      await Promise.all([httpClient(gw, outside), httpClient(gw, everything), httpClient(gw, inside)]);
      const refused = await upload(outside, join(ROOT_A, 'a.txt'));
      expect(refused.isError).toBe(true);
      // The client's root is not among the allowed ones; --file-roots is.
      expect(refused.text).toContain(`is outside the allowed file roots (${DEFAULT_OUTPUT_DIR}/caller-`);
      expect(refused.text).toMatch(new RegExp(`caller-[0-9a-f]{16}, ${ROOT_B}\\)`));
      const slash = await upload(everything, join(ELSEWHERE, 'private.txt'));
      expect(slash.isError).toBe(true);
      expect(slash.text).not.toContain('not for agents');
      // Inside --file-roots the client's root counts, and a relative name resolves in it.
      expect((await upload(inside, 'b.txt')).seen).toContain('b.txt|from root B');
    } finally {
      await Promise.all([outside.close(), everything.close(), inside.close()]);
      await gw.close();
    }
  });

  it('gives the working directory to a client without roots only where one key owns the gateway: not with two keys, not with --no-auth, not off loopback', async () => {
    const cwdFile = join(process.cwd(), `bmcp-cwd-rule-${process.pid}.txt`);
    writeFileSync(cwdFile, 'from the working directory of a one-key gateway');
    const keys = join(mkdtempSync(join(tmpdir(), 'bmcp-two-keys-')), 'keys');
    writeFileSync(keys, 'key-number-one-0123456789abcdef\nkey-number-two-0123456789abcdef\n');
    const [one, two] = await Promise.all([startGateway(), startGateway(['--api-key-file', keys])]);
    const connect = async (gw: RunningHttpGateway, key: string | undefined) => {
      const client = new Client({ name: 'no-roots', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), key ? { requestInit: { headers: { Authorization: `Bearer ${key}` } } } : {}),
      );
      return client;
    };
    const clients = await Promise.all([connect(one, one.apiKey), connect(two, 'key-number-one-0123456789abcdef')]);
    try {
      // The two gateways' browsers start side by side.
      const [fromOne, refused] = await Promise.all([upload(clients[0]!, cwdFile), upload(clients[1]!, cwdFile)]);
      expect(fromOne.seen).toContain('from the working directory of a one-key gateway');
      expect(refused.isError).toBe(true);
      // Only the caller's own output folder is left: no working directory in the list.
      expect(refused.text).toMatch(new RegExp(`${cwdFile} is outside the allowed file roots \\(${DEFAULT_OUTPUT_DIR}/caller-[0-9a-f]{16}\\)`));
      // Without a key (--no-auth) nobody owns the gateway alone either: the same policy as two keys, and none off loopback.
      const policy = (flags: string[]) => {
        const config = resolveConfig(
          buildProgram()
            .exitOverride()
            .parse(['--port', '0', ...flags], { from: 'user' }),
          {},
        );
        return httpRoots(config, config.noAuth ? 0 : Math.max(1, config.apiKeys.length));
      };
      expect(policy(['--no-auth'])).toEqual({ client: { within: [] }, cwd: false, saves: 'none' });
      expect(policy([])).toEqual({ client: { within: [] }, cwd: true, saves: 'roots' });
      expect(policy(['--api-key-file', keys])).toEqual({ client: { within: [] }, cwd: false, saves: 'none' });
      expect(policy(['--host', '0.0.0.0', '--api-key-file', keys])).toEqual({ client: 'none', cwd: false, saves: 'none' });
      expect(policy(['--trust-client-roots'])).toEqual({ client: 'anywhere', cwd: true, saves: 'roots' });
    } finally {
      rmSync(cwdFile, { force: true });
      await Promise.all(clients.map((c) => c.close()));
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe("files a tool can never read, whatever the roots: the server's own, the kernel's, another caller's", () => {
  it("refuses each of the gateway's own files, /proc, /sys, /dev, links to them, and another key's saved file, with --allow-unrestricted-file-access and a client declaring /", async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'bmcp-own-files-')));
    const out = join(home, 'out');
    const own = {
      keys: join(home, 'keys'),
      secrets: join(home, 'secrets.env'),
      // The pairing secret's file (--pairing-file, with --extension): protected in every mode, where it is by default.
      pairing: defaultPairingFile(),
      config: join(home, 'config.json'),
      state: join(home, 'state.json'),
      init: join(home, 'init.js'),
    };
    writeFileSync(own.keys, 'key-of-alice-0123456789abcdef\nkey-of-bob-0123456789abcdefgh\n');
    writeFileSync(own.secrets, 'BANK_PIN=4711-top-secret\n');
    writeFileSync(own.config, JSON.stringify({ outputDir: out }));
    writeFileSync(own.state, JSON.stringify({ cookies: [], origins: [] }));
    writeFileSync(own.init, '// set up');
    // A hard link and a symbolic link to the key file, in a folder any root allows.
    linkSync(own.keys, join(ELSEWHERE, 'hard-link-to-keys'));
    symlinkSync(own.keys, join(ELSEWHERE, 'soft-link-to-keys'));
    const gw = await startGateway([
      '--api-key-file',
      own.keys,
      '--secrets',
      own.secrets,
      '--config',
      own.config,
      '--storage-state',
      own.state,
      '--init-script',
      own.init,
      '--allow-unrestricted-file-access',
      '--trust-client-roots',
      '--file-paths',
      'absolute',
    ]);
    const connect = async (name: string, key: string, roots: string[]) => {
      const client = clientWithRoots(name, { current: roots });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
      return client;
    };
    // Alice declares no folder, so what she saves goes to her key's own output directory; Bob declares all of '/'.
    const alice = await connect('alice', 'key-of-alice-0123456789abcdef', []);
    const bob = await connect('bob', 'key-of-bob-0123456789abcdefgh', ['/']);
    try {
      await alice.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } });
      const saved = text(await alice.callTool({ name: 'browser_take_screenshot', arguments: { filename: 'alice.png' } }));
      const aliceFile = new RegExp(`(${out}/caller-[0-9a-f]{16}/alice\\.png)`).exec(saved)?.[1];
      expect(aliceFile, saved).toBeDefined();
      // Bob's workspace is '/', which holds the output directory: Alice's file stays hers to write too.
      const before = readFileSync(aliceFile!);
      await bob.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      const overwrite = await bob.callTool({ name: 'browser_take_screenshot', arguments: { filename: aliceFile!.slice(1) } });
      expect(overwrite.isError).toBe(true);
      expect(text(overwrite)).toContain("is in the output directory outside this caller's own folder");
      expect(readFileSync(aliceFile!).equals(before)).toBe(true);
      // The launched browser's profile: its cookies are every session's.
      const profile = (gw.backend as unknown as { executor: { browser: { profileDirs(): string[] } } }).executor.browser.profileDirs()[0];
      expect(profile).toBeDefined();
      const ownFiles = [...Object.values(own), join(ELSEWHERE, 'hard-link-to-keys'), join(ELSEWHERE, 'soft-link-to-keys'), join(profile!, 'Local State')];
      // One chooser for all the tries: a refused upload leaves it open for the next.
      await bob.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } });
      expect(text(await bob.callTool({ name: 'browser_click', arguments: { target: '#upload' } }))).toContain('[File chooser]');
      const refusal = async (path: string) => {
        const result = await bob.callTool({ name: 'browser_file_upload', arguments: { paths: [path] } });
        expect(result.isError, path).toBe(true);
        return text(result);
      };
      for (const path of ownFiles) expect(await refusal(path), path).toContain("is one of this server's own files");
      for (const path of ['/proc/self/environ', `/proc/${process.pid}/cmdline`, '/sys/kernel/hostname', '/dev/null', `/proc/self/root${own.keys}`]) {
        expect(await refusal(path), path).toMatch(/system's view of processes and devices|one of this server's own files/);
      }
      expect(await refusal(aliceFile!)).toContain("outside this caller's own folder");
      // The chooser closed with nothing chosen.
      await bob.callTool({ name: 'browser_file_upload', arguments: {} });
      // Nothing reached the page: its file input holds no file after all those tries.
      const files = await bob.callTool({ name: 'browser_evaluate', arguments: { function: "() => document.querySelector('#upload').files.length" } });
      expect(text(files)).toContain('### Result\n0');
      // file:// pages are open with this flag, but not onto the server's own files or the kernel's.
      for (const path of [own.keys, own.secrets, '/proc/self/environ']) {
        const nav = await bob.callTool({ name: 'browser_navigate', arguments: { url: pathToFileURL(path).href } });
        expect(nav.isError, path).toBe(true);
        expect(text(nav), path).not.toContain('key-of-alice');
      }
      // What the flag is for still works: a file elsewhere is uploaded and opened.
      expect((await upload(bob, join(ELSEWHERE, 'private.txt'))).seen).toContain('private.txt|not for agents');
    } finally {
      await Promise.all([alice.close(), bob.close()]);
      await gw.close();
      rmSync(join(ELSEWHERE, 'hard-link-to-keys'), { force: true });
      rmSync(join(ELSEWHERE, 'soft-link-to-keys'), { force: true });
    }
  });

  it("never gives the launched browser the server's BROWSERMCP_ variables", () => {
    expect(browserEnvironment({ PATH: '/bin', BROWSERMCP_API_KEY: 'k', PLAYWRIGHT_MCP_SECRETS_FILE: 's', HOME: '/root' })).toEqual({
      PATH: '/bin',
      HOME: '/root',
    });
  });
});

describe('HTTP reachable from other machines, with --file-roots', () => {
  let gw: RunningHttpGateway;
  beforeAll(async () => {
    gw = await startGateway(['--host', '0.0.0.0', '--file-roots', ROOT_B]);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("does not count a client's roots: its paths name nothing on this machine; --file-roots does", async () => {
    const client = clientWithRoots('remote', { current: [ROOT_A] });
    try {
      await httpClient(gw, client);
      const refused = await upload(client, join(ROOT_A, 'a.txt'));
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(new RegExp(`is outside the allowed file roots \\([^()]*, ${ROOT_B}\\)`));
      expect((await upload(client, join(ROOT_B, 'b.txt'))).seen).toContain('b.txt|from root B');
    } finally {
      await client.close();
    }
  });

  it('MCP 2026-07-28: the client is not asked for roots, and reads from --file-roots only', async () => {
    const { client, asked } = await modernClient(gw, [ROOT_A]);
    try {
      expect((await upload(client, join(ROOT_B, 'b.txt'))).seen).toContain('b.txt|from root B');
      const refused = await upload(client, join(ROOT_A, 'a.txt'));
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(new RegExp(`is outside the allowed file roots \\([^()]*, ${ROOT_B}\\)`));
      expect(asked()).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe('--allow-unrestricted-file-access', () => {
  it('reads a file from anywhere and opens file:// pages', async () => {
    const gw = await startGateway(['--allow-unrestricted-file-access']);
    const client = new Client({ name: 'unrestricted', version: '1' });
    try {
      await httpClient(gw, client);
      expect((await upload(client, join(ELSEWHERE, 'private.txt'))).seen).toContain('private.txt|not for agents');
      const nav = await client.callTool({ name: 'browser_navigate', arguments: { url: pathToFileURL(join(ELSEWHERE, 'private.txt')).href } });
      expect(nav.isError).toBeFalsy();
      expect(text(await client.callTool({ name: 'browser_get_text', arguments: {} }))).toContain('not for agents');
    } finally {
      await client.close();
      await gw.close();
    }
  });
});

describe('saved files per API key', () => {
  it("saves each key's files in a private directory of its own: another key can neither upload nor overwrite them", async () => {
    const out = realpathSync(mkdtempSync(join(tmpdir(), 'bmcp-keys-out-')));
    const keys = join(out, '..', `${out.split('/').pop()}-keys`);
    writeFileSync(keys, 'key-of-alice-0123456789abcdef\nkey-of-bob-0123456789abcdefgh\n');
    const gw = await startGateway(['--api-key-file', keys, '--output-dir', out]);
    const alice = new Client({ name: 'alice', version: '1' });
    const bob = new Client({ name: 'bob', version: '1' });
    const connect = (client: Client, key: string) =>
      client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      await connect(alice, 'key-of-alice-0123456789abcdef');
      await connect(bob, 'key-of-bob-0123456789abcdefgh');
      await alice.callTool({ name: 'browser_navigate', arguments: { url: server.url('/form.html') } });
      const saved = text(await alice.callTool({ name: 'browser_snapshot', arguments: { filename: 'page.md' } }));
      const file = new RegExp(`Saved the snapshot to (${out}/caller-[0-9a-f]{16}/page\\.md)`).exec(saved)?.[1];
      expect(file, saved).toBeDefined();
      const before = readFileSync(file!, 'utf8');
      expect(statSync(join(file!, '..')).mode & 0o777).toBe(0o700);

      // Bob names Alice's file: another caller's, whatever his roots.
      const taken = await upload(bob, file!);
      expect(taken.isError).toBe(true);
      expect(taken.text).toContain(`${file} is in the output directory outside this caller's own folder`);
      // The same name saved by Bob lands in his directory; Alice's file is as she left it.
      await bob.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      const his = text(await bob.callTool({ name: 'browser_snapshot', arguments: { filename: 'page.md' } }));
      expect(his).toMatch(new RegExp(`Saved the snapshot to ${out}/caller-[0-9a-f]{16}/page\\.md`));
      expect(his).not.toContain(file!);
      expect(readFileSync(file!, 'utf8')).toBe(before);
      // And Alice uploads her own saved file.
      expect((await upload(alice, file!)).seen).toContain('page.md|');
    } finally {
      await alice.close();
      await bob.close();
      await gw.close();
    }
  });

  // Only root can give a directory away: CI runs as root.
  it.skipIf(process.getuid?.() !== 0)('refuses an output directory another local user owns: they could read or replace what is saved there', async () => {
    const out = realpathSync(mkdtempSync(join(tmpdir(), 'bmcp-foreign-out-')));
    chownSync(out, 4242, 4242);
    const gw = await startGateway(['--output-dir', out]);
    const client = new Client({ name: 'foreign', version: '1' });
    try {
      await httpClient(gw, client);
      await client.callTool({ name: 'browser_navigate', arguments: { url: server.url('/index.html') } });
      const refused = await client.callTool({ name: 'browser_take_screenshot', arguments: { filename: 'x.png' } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain(`${out} belongs to another user (uid 4242)`);
      expect(readdirSync(out)).toEqual([]);
    } finally {
      await client.close();
      await gw.close();
    }
  });
});

describe('MCP 2026-07-28: the client roots through the input-required round trip', () => {
  it('asks a client that declares roots for them when a call reads files, and reads from them; one without roots gets the working directory', async () => {
    // The shared --trust-client-roots gateway: this test's clients are new ones, and asked() counts its own.
    const gw = trusting;
    const connect = (roots: string[] | undefined) => modernClient(gw, roots);
    const withRoots = await connect([ROOT_A]);
    const inRoot = await upload(withRoots.client, join(ROOT_A, 'a.txt'));
    expect(inRoot.seen, inRoot.text).toContain('a.txt|from root A');
    // Asked once, for the upload: the calls that read no file went straight through.
    expect(withRoots.asked()).toBe(1);
    const outside = await upload(withRoots.client, join(ROOT_B, 'b.txt'));
    expect(outside.isError).toBe(true);
    expect(outside.text).toContain('is outside the allowed file roots');
    await withRoots.client.close();

    // Bound to loopback, a client that declares no roots gets the gateway's working directory, as over stdio.
    const cwdFile = join(process.cwd(), `bmcp-roots-${process.pid}.txt`);
    writeFileSync(cwdFile, 'from the gateway working directory');
    try {
      const without = await connect(undefined);
      const fromCwd = await upload(without.client, cwdFile);
      expect(fromCwd.seen).toContain('from the gateway working directory');
      await without.client.close();
    } finally {
      rmSync(cwdFile, { force: true });
    }
  });
});

describe('--output-max-size, --file-paths and --save-session', () => {
  it("saves a name the model gives in the client's workspace, as @playwright/mcp does; keeps the output directory under the size (oldest go first), and records the session", async () => {
    const workspace = project('workspace', 'notes.txt', 'a project');
    const out = join(workspace, 'out');
    // The workspace is inside --file-roots, so the root the client declares counts over HTTP (one key: it is its own).
    const gw = await startGateway(['--output-dir', out, '--output-max-size', '2500', '--save-session', '--file-roots', workspace]);
    // A client that declares no root has no workspace over HTTP: its files go to its key's own output directory.
    const client = new Client({ name: 'saver', version: '1.0.0' });
    const withRoot = clientWithRoots('workspace-saver', { current: [workspace] });
    try {
      await httpClient(gw, client);
      const saved: string[] = [];
      for (const name of ['a.txt', 'b.txt', 'c.txt']) {
        const result = await client.callTool({ name: 'browser_evaluate', arguments: { function: "() => 'x'.repeat(1000)", filename: name } });
        saved.push(text(result).match(/Saved the result to (\S+)/)?.[1] ?? text(result));
      }
      expect(saved[2]).toMatch(new RegExp(`^${out}/caller-[0-9a-f]{16}/c\\.txt$`));
      const own = join(saved[2]!, '..');
      const left = readdirSync(own);
      expect(left).toContain('c.txt');
      expect(left).not.toContain('a.txt');
      // The record of the session, in the same directory, in call order.
      const record = left.find((name) => name.startsWith('session-'));
      expect(record).toBeDefined();
      // Written as each call ends: the last one may still be on its way.
      const read = () => readFileSync(join(own, record!, 'session.md'), 'utf8');
      await expect.poll(() => read().match(/### Tool call: browser_evaluate/g)?.length).toBe(3);
      const md = read();
      expect(md).toContain('"filename": "a.txt"');
      expect(md.indexOf('a.txt')).toBeLessThan(md.indexOf('c.txt'));

      // The client that declares its folder: the name lands there, shown as it gave it; a hidden name is refused.
      await httpClient(gw, withRoot);
      const inWorkspace = await withRoot.callTool({ name: 'browser_evaluate', arguments: { function: "() => 'page text'", filename: 'notes/result.md' } });
      expect(text(inWorkspace)).toContain('Saved the result to notes/result.md');
      expect(readFileSync(join(workspace, 'notes/result.md'), 'utf8')).toBe('"page text"');
      const hidden = await withRoot.callTool({ name: 'browser_evaluate', arguments: { function: "() => 'x'", filename: '.profile.txt' } });
      expect(hidden.isError).toBe(true);
      expect(text(hidden)).toContain(
        `".profile.txt" names a hidden file or folder; what a tool saves goes only to visible ones in your workspace (${workspace})`,
      );
    } finally {
      await withRoot.close();
      await client.close();
      await gw.close();
    }
  });
});
