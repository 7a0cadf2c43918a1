import { lstat, mkdir, realpath, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { outputNameProblem, ToolError, type FileAccess, type UploadFile } from '@browsermcp/tools';

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

  async resolveUpload(path: string): Promise<UploadFile> {
    return { path: await this.readable(path) };
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
