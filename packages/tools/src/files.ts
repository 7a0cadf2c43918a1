import { ToolError } from './errors.js';
import type { FileAccess, UploadFile } from './session.js';

/**
 * Why `name` cannot name a file inside an output directory, or undefined when it can: relative, no `..` part, not
 * empty. Every host checks it before anything else (a host on disk also checks where links lead).
 */
export function outputNameProblem(name: string): string | undefined {
  const parts = name.split(/[\\/]/);
  if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name) || parts.includes('..') || parts.every((p) => p === '' || p === '.')) {
    return `"${name}" must be a file name inside the output directory, without ".." or an absolute path.`;
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
  private outputs: Array<{ name: string; data: string }> = [];

  /** `outputDir`: where the daemon writes outputs, for the answer to say where a file went. */
  constructor(private readonly outputDir: string) {}

  /** The files that came with the command about to run (none is fine). */
  receive(files: readonly WireFile[] | undefined): void {
    this.inputs = new Map((files ?? []).map((f) => [f.path, f]));
    this.outputs = [];
  }

  /** What the command saved, for its response; empties the list. */
  takeOutputs(): Array<{ name: string; data: string }> {
    return this.outputs.splice(0);
  }

  async resolveUpload(path: string): Promise<UploadFile> {
    const file = this.inputs.get(path);
    if (!file) throw new ToolError(`${path} did not come with the command; the daemon reads uploads for this browser. Try the call again.`);
    return { name: file.name, mimeType: file.mimeType, data: file.data };
  }

  async writeOutput(name: string, data: Uint8Array): Promise<string> {
    const problem = outputNameProblem(name);
    if (problem) throw new ToolError(problem);
    this.outputs.push({ name, data: toBase64(data) });
    const sep = this.outputDir.includes('\\') && !this.outputDir.includes('/') ? '\\' : '/';
    return `${this.outputDir.replace(/[\\/]+$/, '')}${sep}${name}`;
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
