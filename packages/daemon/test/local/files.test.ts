import { chown, mkdir, mkdtemp, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { NodeFileAccess, ownerDirName, sessionFilesOwner } from '../../src/index.js';

let root: string;
let outputDir: string;
let extraRoot: string;
let files: NodeFileAccess;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bmcp-files-'));
  outputDir = join(root, 'out');
  extraRoot = join(root, 'uploads');
  await mkdir(outputDir, { recursive: true });
  await mkdir(extraRoot, { recursive: true });
  await writeFile(join(extraRoot, 'ok.txt'), 'fine');
  await writeFile(join(root, 'secret.txt'), 'secret');
  // A link inside an allowed root that points outside it.
  await symlink(join(root, 'secret.txt'), join(extraRoot, 'sneaky.txt'));
  files = new NodeFileAccess({ outputDir, fileRoots: [extraRoot] });
});

describe('file access for tools (no path traversal)', () => {
  it('saves outputs inside the output directory only', async () => {
    const saved = await files.writeOutput('shot.png', new Uint8Array([1, 2, 3]));
    expect(saved).toBe(join(outputDir, 'shot.png'));
    expect([...(await readFile(saved))]).toEqual([1, 2, 3]);
    expect(await files.writeOutput('sub/dir/page.pdf', new Uint8Array([4]))).toBe(join(outputDir, 'sub/dir/page.pdf'));
    for (const name of ['../escape.png', '/etc/passwd', 'a/../../escape.png', '..', '.']) {
      await expect(files.writeOutput(name, new Uint8Array())).rejects.toThrow('must be a file name inside the output directory');
    }
  });

  it('refuses any generated name that leaves the output directory', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('..', '.', 'a', 'b.png', '', '/'), { minLength: 1, maxLength: 6 }), async (parts) => {
        const name = parts.join('/');
        const full = join(outputDir, name);
        const inside = full.startsWith(`${outputDir}/`) && !name.startsWith('/');
        const result = await files.writeOutput(name, new Uint8Array()).then(
          () => 'saved',
          (e: Error) => e.message,
        );
        if (!inside) expect(result).toContain('must be a file name inside the output directory');
      }),
      { numRuns: 100 },
    );
  });

  it('reads uploads from the allowed roots only', async () => {
    expect(await files.resolveUpload(join(extraRoot, 'ok.txt'))).toEqual({ path: join(extraRoot, 'ok.txt') });
    await expect(files.resolveUpload(join(root, 'secret.txt'))).rejects.toThrow('is outside the allowed file roots');
    await expect(files.resolveUpload(`${extraRoot}/../secret.txt`)).rejects.toThrow('is outside the allowed file roots');
    // A relative name resolves in the first --file-roots directory.
    expect(await files.resolveUpload('ok.txt')).toEqual({ path: join(extraRoot, 'ok.txt') });
    await expect(files.resolveUpload('../secret.txt')).rejects.toThrow('is outside the allowed file roots');
    await expect(files.resolveUpload(join(extraRoot, 'missing.txt'))).rejects.toThrow('does not exist or is not a file');
  });

  it('does not follow a link out of an allowed root', async () => {
    await expect(files.resolveUpload(join(extraRoot, 'sneaky.txt'))).rejects.toThrow('is outside the allowed file roots');
  });
});

describe("a session's client roots", () => {
  it('allows files under the client roots, resolves relative names in the first, and asks only when a file is needed', async () => {
    const project = join(root, 'project');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'cv.pdf'), 'cv');
    const policy = new NodeFileAccess({ outputDir, fileRoots: [extraRoot] });
    // The roots its client's call was handed with.
    const session = policy.forSession('with-root', { roots: [project] });
    expect(await session.resolveUpload('cv.pdf')).toEqual({ path: join(project, 'cv.pdf') });
    expect(await session.resolveUpload(join(extraRoot, 'ok.txt'))).toEqual({ path: join(extraRoot, 'ok.txt') });
    // Another session's client has no roots: the project is not its to read.
    await expect(policy.forSession('other').resolveUpload(join(project, 'cv.pdf'))).rejects.toThrow('is outside the allowed file roots');
    // The folders of the call running now, where a view reads them as each call comes.
    let running: { roots: string[] } | undefined;
    const perCall = policy.forSession('s', () => running);
    await expect(perCall.resolveUpload(join(project, 'cv.pdf'))).rejects.toThrow('is outside the allowed file roots');
    running = { roots: [project] };
    expect(await perCall.resolveUpload('cv.pdf')).toEqual({ path: join(project, 'cv.pdf') });
    await expect(session.resolveUpload(join(root, 'secret.txt'))).rejects.toThrow(`(${project}, ${outputDir}, ${extraRoot})`);
  });

  it('reads any file with unrestricted access, and still says when one is missing', async () => {
    const open = new NodeFileAccess({ outputDir, allowUnrestrictedFileAccess: true });
    expect(await open.resolveUpload(join(root, 'secret.txt'))).toEqual({ path: join(root, 'secret.txt') });
    await expect(open.resolveUpload(join(root, 'nope.txt'))).rejects.toThrow('does not exist or is not a file');
  });
});

describe('links in the output directory', () => {
  it('does not write through a directory link that leaves it', async () => {
    await symlink(root, join(outputDir, 'linked'));
    await expect(files.writeOutput('linked/escape.png', new Uint8Array([1]))).rejects.toThrow('leads out of the output directory');
    // Refused before anything is made: no directory appears where the link points.
    await expect(files.writeOutput('linked/new-dir/deeper/escape.png', new Uint8Array([1]))).rejects.toThrow('leads out of the output directory');
    await expect(stat(join(root, 'new-dir'))).rejects.toThrow('ENOENT');
    await symlink(join(root, 'secret.txt'), join(outputDir, 'trap.png'));
    await expect(files.writeOutput('trap.png', new Uint8Array([1]))).rejects.toThrow('is a link in the output directory');
    expect(await readFile(join(root, 'secret.txt'), 'utf8')).toBe('secret');
  });
});

describe('files per caller', () => {
  it("saves each daemon user's files in a 0700 directory of its own, and reads only the caller's own back", async () => {
    const base = join(root, 'per-user');
    const owners = sessionFilesOwner({ getSession: async (id) => ({ alice: { userId: 'alice' }, bob: { userId: 'bob' }, anon: {} })[id] });
    const access = new NodeFileAccess({ outputDir: base, sessionOwner: owners });
    const alices = await access.forSession('alice').writeOutput('report.pdf', new Uint8Array([1]));
    const bobs = await access.forSession('bob').writeOutput('report.pdf', new Uint8Array([2]));
    expect(alices).toBe(join(base, ownerDirName('user:alice'), 'report.pdf'));
    expect(bobs).toBe(join(base, ownerDirName('user:bob'), 'report.pdf'));
    expect((await stat(join(alices, '..'))).mode & 0o777).toBe(0o700);
    expect([...(await readFile(alices))]).toEqual([1]);
    await expect(access.forSession('bob').readable(alices)).rejects.toThrow(`${alices} is in the output directory outside this caller's own folder`);
    expect(await access.forSession('alice').readable(alices)).toBe(alices);
    // A session without a user (no auth) has the output directory itself.
    expect(await access.forSession('anon').writeOutput('shared.png', new Uint8Array([3]))).toBe(join(base, 'shared.png'));
    expect(ownerDirName('user:alice')).toMatch(/^caller-[0-9a-f]{16}$/);
  });

  it('refuses a directory in its place that is a link, or (as root) one another user owns', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'bmcp-elsewhere-'));
    const linked = join(root, 'linked-out');
    await symlink(elsewhere, linked);
    const access = new NodeFileAccess({ outputDir: linked });
    await expect(access.forSession('s').writeOutput('x.png', new Uint8Array([1]))).rejects.toThrow(
      `${linked} is not a directory (a link or a file is in its place)`,
    );
    if (process.getuid?.() === 0) {
      const foreign = join(root, 'foreign-out');
      await mkdir(foreign);
      await chown(foreign, 4242, 4242);
      await expect(new NodeFileAccess({ outputDir: foreign }).writeOutput('x.png', new Uint8Array([1]))).rejects.toThrow('belongs to another user (uid 4242)');
    }
  });
});

describe('--output-max-size and --file-paths', () => {
  it("deletes the oldest saved files past the size, keeping the one just saved; shows paths relative to the session's first root, or absolute", async () => {
    const project = await mkdtemp(join(tmpdir(), 'bmcp-project-'));
    const out = join(project, 'out');
    const policy = (filePaths?: 'absolute') => new NodeFileAccess({ outputDir: out, outputMaxBytes: 250, ...(filePaths ? { filePaths } : {}) });
    const session = policy().forSession('s', { roots: [project] });
    const saved: string[] = [];
    for (const name of ['a.txt', 'b.txt', 'sub/c.txt']) {
      saved.push(await session.writeOutput(name, new Uint8Array(100)));
      // Modification times a step apart, so "oldest" is the order of the saves.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Shown as the client names files: relative to its workspace, and an upload of that name finds it.
    expect(saved).toEqual(['out/a.txt', 'out/b.txt', 'out/sub/c.txt']);
    expect(await session.resolveUpload('out/b.txt')).toEqual({ path: join(out, 'b.txt') });
    // 300 bytes past 250: the oldest went.
    await expect(stat(join(out, 'a.txt'))).rejects.toThrow('ENOENT');
    expect((await stat(join(out, 'sub', 'c.txt'))).size).toBe(100);
    // One file larger than the limit stays (it is the one just saved); everything older goes.
    await session.writeOutput('big.bin', new Uint8Array(400));
    await expect(stat(join(out, 'b.txt'))).rejects.toThrow('ENOENT');
    expect((await stat(join(out, 'big.bin'))).size).toBe(400);
    // --file-paths absolute; and a file outside the workspace is shown absolute either way.
    expect(
      await policy('absolute')
        .forSession('s', { roots: [project] })
        .writeOutput('d.txt', new Uint8Array(1)),
    ).toBe(join(out, 'd.txt'));
    const elsewhere = new NodeFileAccess({ outputDir }).forSession('s', { roots: [project] });
    expect(await elsewhere.writeOutput('e.txt', new Uint8Array(1))).toBe(join(outputDir, 'e.txt'));
  });
});

describe("a client's workspace (names the model gives for saved files, as @playwright/mcp saves them)", () => {
  it('saves a given name in the workspace and shows it relative to it; a generated one, and a session without a workspace, in the output directory', async () => {
    const project = await mkdtemp(join(tmpdir(), 'bmcp-workspace-'));
    const out = join(root, 'out-ws');
    const policy = new NodeFileAccess({ outputDir: out });
    const mine = policy.forSession('mine', { roots: [project], workspace: project });
    expect(await mine.writeOutput('shots/page.png', new Uint8Array([7, 8]))).toBe('shots/page.png');
    expect([...(await readFile(join(project, 'shots/page.png')))]).toEqual([7, 8]);
    expect(await mine.namedOutputDirectory()).toBe('');
    // A PDF's default name is the server's, not the model's: the output directory, as @playwright/mcp keeps it.
    expect(await mine.writeOutput('page-1.pdf', new Uint8Array([1]), { generated: true })).toBe(join(out, 'page-1.pdf'));
    const theirs = policy.forSession('theirs', { roots: [project] });
    expect(await theirs.writeOutput('shot.png', new Uint8Array([3]))).toBe(join(out, 'shot.png'));
    expect(await theirs.namedOutputDirectory()).toBe(out);
    await expect(stat(join(project, 'shot.png'))).rejects.toThrow('ENOENT');
    const absolute = new NodeFileAccess({ outputDir: out, filePaths: 'absolute' }).forSession('s', { roots: [], workspace: project });
    expect(await absolute.writeOutput('a.md', new TextEncoder().encode('# a'))).toBe(join(project, 'a.md'));
    expect(await absolute.namedOutputDirectory()).toBe(project);
  });

  it("never overwrites a file of the person's; a file it saved itself is saved again", async () => {
    const project = await mkdtemp(join(tmpdir(), 'bmcp-workspace-'));
    await writeFile(join(project, 'README.md'), '# mine');
    await writeFile(join(project, 'AGENTS.md'), 'be careful');
    const ws = new NodeFileAccess({ outputDir: join(root, 'out-ws3') }).forSession('s', { roots: [project], workspace: project });
    for (const name of ['README.md', 'AGENTS.md']) {
      await expect(ws.writeOutput(name, new TextEncoder().encode('page text'))).rejects.toThrow(
        `"${name}" already exists in your workspace and browsermcp did not save it: pick another name`,
      );
    }
    expect([await readFile(join(project, 'README.md'), 'utf8'), await readFile(join(project, 'AGENTS.md'), 'utf8')]).toEqual(['# mine', 'be careful']);
    // Its own file, saved again (a second screenshot under the same name), in this session or another.
    expect(await ws.writeOutput('notes.md', new TextEncoder().encode('one'))).toBe('notes.md');
    const other = new NodeFileAccess({ outputDir: join(root, 'out-ws3') }).forSession('t', { roots: [project], workspace: project });
    expect(await other.writeOutput('notes.md', new TextEncoder().encode('two'))).toBe('notes.md');
    expect(await readFile(join(project, 'notes.md'), 'utf8')).toBe('two');
  });

  it('never saves a hidden file, a kind tools do not save, a path out of it, through a link, or over the server’s own files', async () => {
    const project = await mkdtemp(join(tmpdir(), 'bmcp-workspace-'));
    const key = join(project, 'key.json');
    await writeFile(key, '{"secret":1}');
    await mkdir(join(project, 'docs'));
    await symlink(root, join(project, 'linked'));
    await symlink(join(root, 'secret.txt'), join(project, 'trap.png'));
    const ws = new NodeFileAccess({ outputDir: join(root, 'out-ws2'), protectedPaths: [key] }).forSession('s', { roots: [], workspace: project });
    const refused = async (name: string) =>
      ws.writeOutput(name, new TextEncoder().encode('page text')).then(
        () => 'saved',
        (e: Error) => e.message,
      );
    expect(await refused('.bashrc')).toContain('names a hidden file or folder');
    expect(await refused('.git/hooks/pre-commit.txt')).toContain('names a hidden file or folder');
    expect(await refused('docs/.env.json')).toContain('names a hidden file or folder');
    for (const name of ['run.sh', 'Makefile', 'index.html', 'docs/tool.js', 'x.png.exe']) {
      expect(await refused(name)).toContain('must end in one of .png, .jpg');
    }
    expect(await refused('../outside.png')).toContain("must be a file name inside the output directory (or the client's workspace)");
    expect(await refused(join(project, 'abs.png'))).toContain('without ".." or an absolute path');
    expect(await refused('linked/escape.png')).toContain('leads out of your workspace');
    expect(await refused('trap.png')).toContain('is a link in your workspace');
    expect(await refused('key.json')).toContain("is one of this server's own files");
    // Nothing was written by the refused names; the secret the link points at is as it was.
    expect(await readFile(join(root, 'secret.txt'), 'utf8')).toBe('secret');
    expect(await readFile(key, 'utf8')).toBe('{"secret":1}');
    await expect(stat(join(root, 'escape.png'))).rejects.toThrow('ENOENT');
    expect(await refused('docs/notes.md')).toBe('saved');
    expect(await readFile(join(project, 'docs/notes.md'), 'utf8')).toBe('page text');
  });
});
