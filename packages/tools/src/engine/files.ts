import { ToolError } from './errors.js';

/**
 * A file to upload: a path the browser can read itself (a browser next to the host's disk), or the contents (a
 * browser elsewhere, e.g. the person's through the extension), set in the page as a File.
 */
export type UploadFile = { path: string } | { name: string; mimeType: string /** base64 */; data: string };

/** How a host lets tools touch files: each host allows, maps or refuses paths (no Node built-ins here). */
export interface FileAccess {
  /**
   * Maps a path the model named for upload to a file the browser can get; throws a ToolError when not allowed.
   * `contents`: the tool needs the bytes themselves (a drop sets them in the page), not a path.
   */
  resolveUpload(path: string, options?: { contents?: boolean }): Promise<UploadFile>;
  /**
   * Saves an output (screenshot, PDF, GIF) under a file name; returns where it went, as the answer shows it; throws
   * when not allowed. A name the model gave lands in the client's workspace where the host has one (as with
   * @playwright/mcp); a `generated` one (a PDF's default name) in the output directory.
   */
  writeOutput(name: string, data: Uint8Array, options?: { generated?: boolean }): Promise<string>;
}

/**
 * Why `name` cannot name a file inside an output directory, or undefined when it can: relative, no `..` part, not
 * empty. Every host checks it before anything else (a host on disk also checks where links lead).
 */
export function outputNameProblem(name: string): string | undefined {
  const parts = name.split(/[\\/]/);
  if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name) || parts.includes('..') || parts.every((p) => p === '' || p === '.')) {
    return `"${name}" must be a file name inside the output directory (or the client's workspace), without ".." or an absolute path.`;
  }
  return undefined;
}

/** A file as it travels with a command or a response (base64), the same shape as the protocol's. */
export interface WireFile {
  path: string;
  name: string;
  mimeType: string;
  data: string;
}

/**
 * File access for a browser away from the disk (the person's, through the extension): the daemon reads each upload
 * under its file policy and sends it with the command; what tools save goes back with the response for the daemon
 * to write. The tools see the same FileAccess as next to a launched browser.
 */
export class WireFileAccess implements FileAccess {
  private inputs = new Map<string, WireFile>();
  private outputs: Array<{ name: string; data: string; generated?: boolean }> = [];
  private namedOutputDir: string | undefined;

  /** `outputDir`: where the daemon writes outputs, for the answer to say where a file went. */
  constructor(private readonly outputDir: string) {}

  /**
   * The files that came with the command about to run (none is fine), and where a name the model gave it lands, as
   * the daemon worked it out for this command (the client's workspace, or the output directory).
   */
  receive(files: readonly WireFile[] | undefined, namedOutputDir?: string): void {
    this.inputs = new Map((files ?? []).map((f) => [f.path, f]));
    this.outputs = [];
    this.namedOutputDir = namedOutputDir;
  }

  /** What the command saved, for its response; empties the list. */
  takeOutputs(): Array<{ name: string; data: string; generated?: boolean }> {
    return this.outputs.splice(0);
  }

  async resolveUpload(path: string): Promise<UploadFile> {
    const file = this.inputs.get(path);
    if (!file) throw new ToolError(`${path} did not come with the command; the daemon reads uploads for this browser. Try the call again.`);
    return { name: file.name, mimeType: file.mimeType, data: file.data };
  }

  async writeOutput(name: string, data: Uint8Array, options: { generated?: boolean } = {}): Promise<string> {
    const problem = outputNameProblem(name);
    if (problem) throw new ToolError(problem);
    this.outputs.push({ name, data: toBase64(data), ...(options.generated ? { generated: true } : {}) });
    const dir = options.generated ? this.outputDir : (this.namedOutputDir ?? this.outputDir);
    if (dir === '') return name;
    const sep = dir.includes('\\') && !dir.includes('/') ? '\\' : '/';
    return `${dir.replace(/[\\/]+$/, '')}${sep}${name}`;
  }
}

/** Base64 without Node's Buffer, so the engine runs in an extension worker too. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}
