import { lstat, mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import mime from 'mime-types';
import { outputNameProblem, ToolError, type FileAccess, type UploadFile } from '@browsermcp/tools';

/** What one call may read as contents (an upload to a browser elsewhere, a drop), all files together. */
export const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

/** `path` itself if it exists, else its nearest ancestor that does. */
async function deepestExisting(path: string): Promise<string> {
  for (let p = path; ; p = resolve(p, '..')) {
    if (await lstat(p).then(() => true, () => false)) return p;
    if (p === resolve(p, '..')) return p;
  }
}

/**
 * The directories one session's client works in (its MCP roots, or the working directory of a stdio gateway), asked
 * when a file is first needed: the gateway knows them, the daemon only asks.
 */
export type SessionRoots = (sessionId: string) => Promise<readonly string[]>;

export interface NodeFileAccessOptions {
  outputDir: string;
  /** --file-roots: more directories input files may be read from. */
  roots?: string[] | undefined;
  /** --allow-unrestricted-file-access: any readable file may be an input. */
  unrestricted?: boolean | undefined;
  /** The client's own roots, per session (see forSession). */
  sessionRoots?: SessionRoots | undefined;
}

/**
 * Files for tools running next to the daemon: outputs go to one directory, input files are read only from the
 * session's client roots, the output directory and the configured roots. Anything else is refused: a model must not
 * reach arbitrary files.
 */
export class NodeFileAccess implements FileAccess {
  readonly outputDir: string;
  /** The output directory and --file-roots, for every session. */
  readonly roots: string[];
  private readonly configured: string[];

  constructor(
    private readonly options: NodeFileAccessOptions,
    /** The session this view reads for: its client's roots come first. */
    private readonly sessionId?: string,
  ) {
    this.outputDir = resolve(options.outputDir);
    this.configured = (options.roots ?? []).map((r) => resolve(r));
    this.roots = [this.outputDir, ...this.configured];
  }

  /** The same policy, for one session: its client's roots are allowed too, and relative names resolve in the first. */
  forSession(sessionId: string): NodeFileAccess {
    return new NodeFileAccess(this.options, sessionId);
  }

  /** The session's client roots (none for a view without a session). */
  private async clientRoots(): Promise<string[]> {
    if (this.sessionId === undefined || !this.options.sessionRoots) return [];
    return (await this.options.sessionRoots(this.sessionId)).map((r) => resolve(r));
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
    const own = await this.clientRoots();
    const roots = [...own, ...this.roots];
    // A relative name is the client's: it resolves in its first root (the project), else in --file-roots' first.
    const full = resolve(own[0] ?? this.configured[0] ?? this.outputDir, path);
    const real = await realpath(full).catch(() => undefined);
    const info = real ? await stat(real).catch(() => undefined) : undefined;
    const outside = () =>
      new ToolError(
        `${full} is outside the allowed file roots (${roots.join(', ')}). Put the file in one of them, or have your MCP client declare its folder as a root.`,
      );
    if (!this.options.unrestricted && !roots.some((root) => inside(root, full))) throw outside();
    if (!real || !info?.isFile()) throw new ToolError(`${full} does not exist or is not a file.`);
    if (this.options.unrestricted) return real;
    // Judged by where the file really is: a link inside a root must not reach a file outside it.
    const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => r)));
    if (!realRoots.some((root) => inside(root, real))) throw outside();
    return real;
  }

  async writeOutput(name: string, data: Uint8Array): Promise<string> {
    const problem = outputNameProblem(name);
    if (problem) throw new ToolError(`${problem} The output directory is ${this.outputDir}.`);
    const full = resolve(this.outputDir, name);
    const dir = resolve(full, '..');
    await mkdir(this.outputDir, { recursive: true });
    // A directory link inside the output directory must not carry the write somewhere else: judged on the deepest
    // part of the path that exists, before anything is created (a refused name leaves the disk as it was).
    const [realExisting, realOut] = await Promise.all([realpath(await deepestExisting(dir)), realpath(this.outputDir)]);
    if (!inside(realOut, realExisting)) {
      throw new ToolError(`"${name}" leads out of the output directory (${this.outputDir}) through a link; pick another name.`);
    }
    await mkdir(dir, { recursive: true });
    if ((await lstat(full).catch(() => undefined))?.isSymbolicLink()) {
      throw new ToolError(`"${name}" is a link in the output directory; pick another name.`);
    }
    await writeFile(full, data);
    return full;
  }
}
