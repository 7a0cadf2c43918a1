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

/**
 * Files for tools running next to the daemon: outputs go to one directory, uploads are read only from the output
 * directory and the configured roots. Anything else is refused: a model must not reach arbitrary files.
 */
export class NodeFileAccess implements FileAccess {
  readonly outputDir: string;
  readonly roots: string[];

  constructor(options: { outputDir: string; roots?: string[] }) {
    this.outputDir = resolve(options.outputDir);
    this.roots = [this.outputDir, ...(options.roots ?? []).map((r) => resolve(r))];
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
    if (!isAbsolute(path)) throw new ToolError(`Upload paths must be absolute; "${path}" is not.`);
    const outside = () => new ToolError(`${path} is outside the allowed file roots (${this.roots.join(', ')}). Put the file in one of them.`);
    if (!this.roots.some((root) => inside(root, resolve(path)))) throw outside();
    // Judged by where the file really is: a link inside a root must not reach a file outside it.
    const real = await realpath(path).catch(() => undefined);
    const info = real ? await stat(real).catch(() => undefined) : undefined;
    if (!real || !info?.isFile()) throw new ToolError(`${path} does not exist or is not a file.`);
    const realRoots = await Promise.all(this.roots.map((r) => realpath(r).catch(() => r)));
    if (!realRoots.some((root) => inside(root, real))) throw outside();
    return real;
  }

  async writeOutput(name: string, data: Uint8Array): Promise<string> {
    const problem = outputNameProblem(name);
    if (problem) throw new ToolError(`${problem} The output directory is ${this.outputDir}.`);
    const full = resolve(this.outputDir, name);
    const dir = resolve(full, '..');
    await mkdir(dir, { recursive: true });
    // A directory link inside the output directory must not carry the write somewhere else.
    const [realDir, realOut] = await Promise.all([realpath(dir), realpath(this.outputDir)]);
    if (!inside(realOut, realDir)) {
      throw new ToolError(`"${name}" leads out of the output directory (${this.outputDir}) through a link; pick another name.`);
    }
    if ((await lstat(full).catch(() => undefined))?.isSymbolicLink()) {
      throw new ToolError(`"${name}" is a link in the output directory; pick another name.`);
    }
    await writeFile(full, data);
    return full;
  }
}
