import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import mime from 'mime-types';
import { outputNameProblem, ToolError, type FileAccess, type UploadFile } from '@browsermcp/tools';
import { evictOldest } from './output-eviction.js';
import { inside, ProtectedFiles, type ProtectedPaths } from './protected-files.js';
import type { ClientFolders } from '../router/types.js';

/** What one call may read as contents (an upload to a browser elsewhere, a drop), all files together. */
export const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `path` itself if it exists, else its nearest ancestor that does. */
async function deepestExisting(path: string): Promise<string> {
  for (let p = path; ; p = resolve(p, '..')) {
    if (
      await lstat(p).then(
        () => true,
        () => false,
      )
    )
      return p;
    if (p === resolve(p, '..')) return p;
  }
}

/**
 * Whose files a session's are: an API key ("key:<hash of the key>") or a daemon user ("user:<id>"); undefined where
 * one owner has them all (no auth, stdio). Each owner saves into, and uploads from, a directory of its own.
 */
export type SessionOwner = (sessionId: string) => Promise<string | undefined>;

/** The default SessionOwner of a daemon: the user whose token opened the session (none without auth). */
export function sessionFilesOwner(router: { getSession(sessionId: string): Promise<{ userId?: string } | undefined> }): SessionOwner {
  return async (sessionId) => {
    const userId = (await router.getSession(sessionId))?.userId;
    return userId === undefined ? undefined : `user:${userId}`;
  };
}

/** The directory of an owner's files under the output directory: named by a hash, so a listing names no user or key. */
export function ownerDirName(owner: string): string {
  return `caller-${createHash('sha256').update('browsermcp output directory\0').update(owner).digest('hex').slice(0, 16)}`;
}

/** This process's user, where the platform has one (ownership is checked against it). */
const ME = typeof process.getuid === 'function' ? process.getuid() : undefined;

/**
 * Makes `dir` (0700 when it is made here) and checks it is a real directory this user owns: a directory another local
 * user made there first, or a link, would hand them what is saved in it.
 */
async function ownDirectory(dir: string, mode?: number): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  if (!info.isDirectory()) throw new ToolError(`${dir} is not a directory (a link or a file is in its place); remove it, or choose another --output-dir.`);
  if (ME !== undefined && info.uid !== ME) {
    throw new ToolError(`${dir} belongs to another user (uid ${info.uid}), who could read or replace what is saved there; choose another --output-dir.`);
  }
  if (mode !== undefined && (info.mode & 0o777) !== mode) await chmod(dir, mode);
}

/** --file-paths: how an answer shows where a file was saved. */
export const FILE_PATH_MODES = ['relative', 'absolute'] as const;
export type FilePathMode = (typeof FILE_PATH_MODES)[number];

export interface NodeFileAccessOptions {
  outputDir: string;
  /** --output-max-size: bytes each owner's directory keeps; the oldest files go past it. */
  outputMaxBytes?: number | undefined;
  /** --file-paths: relative (to the session's first root, when inside it; the default) or absolute. */
  filePaths?: FilePathMode | undefined;
  /** --file-roots: more directories input files may be read from. */
  fileRoots?: string[] | undefined;
  /** --allow-unrestricted-file-access: any readable file may be an input (but for the protected ones). */
  allowUnrestrictedFileAccess?: boolean | undefined;
  /** The server's own files and directories (keys, secrets, config, profile): never an input, whatever the roots. */
  protectedPaths?: ProtectedPaths | undefined;
  /** Whose files each session's are (see SessionOwner); without it, all sessions share the output directory. */
  sessionOwner?: SessionOwner | undefined;
}

/** A session view's client folders: as handed with the call running now (see forSession). */
type FoldersOf = () => ClientFolders | undefined;

/**
 * What may be saved in a client's workspace: the kinds of file tools save (images, PDFs, text and data), never a name
 * a program runs or reads as its settings, and nothing hidden (`.bashrc`, `.git/hooks/…`): a page decides much of
 * what is saved.
 */
const WORKSPACE_EXTENSIONS = ['png', 'jpg', 'jpeg', 'webp', 'gif', 'pdf', 'md', 'txt', 'yml', 'yaml', 'json', 'log', 'csv'];

/** Why a name may not be saved in a workspace, or undefined. */
function workspaceNameProblem(name: string, workspace: string): string | undefined {
  if (name.split(/[\\/]/).some((part) => part.startsWith('.') && part !== '.')) {
    return `"${name}" names a hidden file or folder; what a tool saves goes only to visible ones in your workspace (${workspace}).`;
  }
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  if (ext === undefined || !WORKSPACE_EXTENSIONS.includes(ext)) {
    return `"${name}" must end in one of .${WORKSPACE_EXTENSIONS.join(', .')} to be saved in your workspace (${workspace}): the kinds of file tools save, never one a program would run.`;
  }
  return undefined;
}

/**
 * Files for tools running next to the daemon: outputs go to the session owner's directory under the output directory
 * (made 0700; the output directory and it must belong to this user), input files are read only from the session's
 * client roots, its owner's output directory and the configured roots. Anything else is refused: a model must not
 * reach arbitrary files, nor another key's or user's saved files.
 */
export class NodeFileAccess implements FileAccess {
  readonly outputDir: string;
  private readonly configured: string[];
  private readonly protected: ProtectedFiles;

  constructor(
    private readonly options: NodeFileAccessOptions,
    /** The session this view reads for: its client's roots come first. */
    private readonly sessionId?: string,
    /** Its client's folders (roots, workspace), as handed with the call (none: no roots, names land in the output directory). */
    private readonly folders: FoldersOf = () => undefined,
  ) {
    this.outputDir = resolve(options.outputDir);
    this.configured = (options.fileRoots ?? []).map((r) => resolve(r));
    this.protected = new ProtectedFiles(options.protectedPaths ?? []);
  }

  /** Where this session's owner saves (nothing made yet), as answers show it: for a browser elsewhere, to name the files it saves. */
  async outputDirectory(): Promise<string> {
    return this.shown(await this.ownerOutputDir());
  }

  /**
   * A path as an answer shows it: relative to the session's workspace root (its client's first root) when inside it,
   * as @playwright/mcp shows them, unless --file-paths absolute. The same relative name is what an upload resolves.
   */
  private async shown(path: string): Promise<string> {
    if (this.options.filePaths === 'absolute') return path;
    const [root] = await this.clientRoots();
    if (root === undefined || !inside(root, path) || path === root) return path;
    return relative(root, path);
  }

  private async ownerOutputDir(): Promise<string> {
    const owner = this.sessionId === undefined ? undefined : await this.options.sessionOwner?.(this.sessionId);
    return owner === undefined ? this.outputDir : join(this.outputDir, ownerDirName(owner));
  }

  /** Where this session's owner saves, checked (and made) before each use. */
  private async ownOutputDir(): Promise<string> {
    const dir = await this.ownerOutputDir();
    await ownDirectory(this.outputDir);
    if (dir !== this.outputDir) await ownDirectory(dir, 0o700);
    return dir;
  }

  /**
   * The same policy, for one session: its client's roots, handed with the call (`folders`: the call's, or where the
   * running call's are), are allowed too, relative names resolve in the first, and names the model gives for saved
   * files land in its workspace (its first MCP root, or the working directory over stdio), as with @playwright/mcp.
   */
  forSession(sessionId: string, folders?: ClientFolders | FoldersOf): NodeFileAccess {
    return new NodeFileAccess(this.options, sessionId, typeof folders === 'function' ? folders : () => folders);
  }

  /** The session's client roots (none for a view without a session). */
  private async clientRoots(): Promise<string[]> {
    if (this.sessionId === undefined) return [];
    return (this.folders()?.roots ?? []).map((r) => resolve(r));
  }

  async resolveUpload(path: string, options: { contents?: boolean } = {}): Promise<UploadFile> {
    if (!options.contents) return { path: await this.readable(path) };
    const [file] = await this.readContents([path]);
    return { name: file!.name, mimeType: file!.mimeType, data: file!.data };
  }

  /** Reads files a model named for input, under the same rules as uploads, bounded in total size; contents in base64. */
  async readContents(paths: readonly string[]): Promise<Array<{ path: string; name: string; mimeType: string; data: string }>> {
    const real = await Promise.all(paths.map((path) => this.readable(path)));
    const sizes = await Promise.all(real.map(async (path) => (await stat(path)).size));
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total > MAX_UPLOAD_BYTES) {
      throw new ToolError(`These files come to ${mb(total)}; an upload to this browser takes at most ${mb(MAX_UPLOAD_BYTES)}. Upload fewer or smaller files.`);
    }
    return Promise.all(
      paths.map(async (path, i) => ({
        path,
        name: basename(real[i]!),
        mimeType: mime.lookup(real[i]!) || '',
        data: (await readFile(real[i]!)).toString('base64'),
      })),
    );
  }

  /** Reads a file the model named for input (an upload, a storage state) where it really is, if a root holds it. */
  async readable(path: string): Promise<string> {
    const [own, output] = await Promise.all([this.clientRoots(), this.ownOutputDir()]);
    const roots = [...own, output, ...this.configured];
    // A relative name is the client's: it resolves in its first root (the project), else in --file-roots' first.
    const full = resolve(own[0] ?? this.configured[0] ?? output, path);
    const real = await realpath(full).catch(() => undefined);
    const info = real ? await stat(real).catch(() => undefined) : undefined;
    const outside = () =>
      new ToolError(
        `${full} is outside the allowed file roots (${roots.join(', ')}). Put the file in one of them, or have your MCP client declare its folder as a root.`,
      );
    // Whatever the roots: the server's own files, the kernel's, and other callers' saved files.
    const refusal = (await this.protected.refusal(full, real)) ?? (await this.otherCallers(output, full, real));
    if (refusal) throw new ToolError(refusal);
    if (!this.options.allowUnrestrictedFileAccess && !roots.some((root) => inside(root, full))) throw outside();
    if (!real || !info?.isFile()) throw new ToolError(`${full} does not exist or is not a file.`);
    if (this.options.allowUnrestrictedFileAccess) return real;
    // Judged by where the file really is: a link inside a root must not reach a file outside it.
    const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => r)));
    if (!realRoots.some((root) => inside(root, real))) throw outside();
    return real;
  }

  /** Why a path is another caller's (in the output directory, outside this session's own part of it), or undefined. */
  private async otherCallers(own: string, named: string, real: string | undefined): Promise<string | undefined> {
    if (own === this.outputDir) return undefined;
    const [realOutput, realOwn] = await Promise.all([realpath(this.outputDir).catch(() => this.outputDir), realpath(own).catch(() => own)]);
    const theirs = (inside(this.outputDir, named) && !inside(own, named)) || (real !== undefined && inside(realOutput, real) && !inside(realOwn, real));
    return theirs
      ? `${named} is in the output directory outside this caller's own folder (${own}): each API key reads and writes only its own files there.`
      : undefined;
  }

  async writeOutput(name: string, data: Uint8Array, options: { generated?: boolean } = {}): Promise<string> {
    const workspace = options.generated ? undefined : await this.workspace();
    return this.shown(workspace === undefined ? await this.putOutput(name, data, 'write') : await this.putInWorkspace(workspace, name, data));
  }

  /** The session's workspace, where names the model gives land (none: the output directory). */
  private async workspace(): Promise<string | undefined> {
    const workspace = this.sessionId === undefined ? undefined : this.folders()?.workspace;
    return workspace === undefined ? undefined : resolve(workspace);
  }

  /**
   * Where a name the model gives lands, as answers show it, for a browser elsewhere to name what it saves: the
   * workspace ("" while answers show paths relative to it), else the owner's output directory.
   */
  async namedOutputDirectory(): Promise<string> {
    const workspace = await this.workspace();
    if (workspace === undefined) return this.outputDirectory();
    return this.options.filePaths === 'absolute' ? workspace : '';
  }

  /**
   * Appends to a file of this session's owner under the output directory (a session record, --save-session), under
   * the same checks as every saved file: the owner's folder, no links, counted toward --output-max-size. Returns
   * its full path.
   */
  appendOutput(name: string, text: string): Promise<string> {
    return this.putOutput(name, text, 'append');
  }

  private async putOutput(name: string, data: Uint8Array | string, how: 'write' | 'append'): Promise<string> {
    const problem = outputNameProblem(name);
    if (problem) throw new ToolError(`${problem} The output directory is ${await this.ownerOutputDir()}.`);
    const output = await this.ownOutputDir();
    await mkdir(output, { recursive: true });
    const full = await writeUnder(output, 'the output directory', name, data, how);
    if (this.options.outputMaxBytes !== undefined) await evictOldest(output, this.options.outputMaxBytes, full);
    return full;
  }

  /** Saves under a name the model gave in the client's workspace: visible files of the kinds tools save, never the server's own. */
  private async putInWorkspace(workspace: string, name: string, data: Uint8Array): Promise<string> {
    const problem = outputNameProblem(name);
    if (problem) throw new ToolError(`${problem} Your workspace is ${workspace}.`);
    const kind = workspaceNameProblem(name, workspace);
    if (kind) throw new ToolError(kind);
    if (
      !(await stat(workspace).then(
        (i) => i.isDirectory(),
        () => false,
      ))
    ) {
      throw new ToolError(`Your workspace ${workspace} (your MCP client's first root) is not a folder here; declare an existing folder as a root.`);
    }
    const full = resolve(workspace, name);
    const real = await realpath(full).catch(() => undefined);
    // A workspace may hold the output directory (a client declaring /): other callers' files stay theirs.
    const refusal = (await this.protected.refusal(full, real)) ?? (await this.otherCallers(await this.ownerOutputDir(), full, real));
    if (refusal) throw new ToolError(refusal);
    // The person's own files are never overwritten (a page could steer an agent into replacing README.md or an
    // agent's instructions file): only a file browsermcp saved there itself, in this run, is written again.
    // (A link in the name's place is writeUnder's to refuse, as a link.)
    const existing = await lstat(full).catch(() => undefined);
    if (existing !== undefined && !existing.isSymbolicLink() && !WORKSPACE_WRITES.has(real ?? full)) {
      throw new ToolError(
        `"${name}" already exists in your workspace and browsermcp did not save it: pick another name (files of yours are never overwritten).`,
      );
    }
    const saved = await writeUnder(workspace, 'your workspace', name, data, 'write');
    rememberWorkspaceWrite(await realpath(saved));
    return saved;
  }
}

/** The files saved in clients' workspaces in this run (real paths, the oldest forgotten first): they may be saved again. */
const WORKSPACE_WRITES = new Set<string>();
const MOST_WORKSPACE_WRITES = 10_000;

function rememberWorkspaceWrite(real: string): void {
  WORKSPACE_WRITES.delete(real);
  WORKSPACE_WRITES.add(real);
  if (WORKSPACE_WRITES.size > MOST_WORKSPACE_WRITES) WORKSPACE_WRITES.delete(WORKSPACE_WRITES.values().next().value!);
}

/**
 * Writes `name` under `base` (which exists): a directory link inside it must not carry the write somewhere else,
 * judged on the deepest part of the path that exists, before anything is created (a refused name leaves the disk as
 * it was); a link in the file's place is refused, and one put there after the check fails the open (O_NOFOLLOW).
 */
async function writeUnder(base: string, where: string, name: string, data: Uint8Array | string, how: 'write' | 'append'): Promise<string> {
  const full = resolve(base, name);
  const dir = resolve(full, '..');
  const [realExisting, realBase] = await Promise.all([realpath(await deepestExisting(dir)), realpath(base)]);
  if (!inside(realBase, realExisting)) {
    throw new ToolError(`"${name}" leads out of ${where} (${base}) through a link; pick another name.`);
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if ((await lstat(full).catch(() => undefined))?.isSymbolicLink()) {
    throw new ToolError(`"${name}" is a link in ${where}; pick another name.`);
  }
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (how === 'append' ? constants.O_APPEND : constants.O_TRUNC);
  await writeFile(full, data, { flag: flags, mode: 0o600 }).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ELOOP' ? new ToolError(`"${name}" is a link in ${where}; pick another name.`) : err;
  });
  return full;
}
