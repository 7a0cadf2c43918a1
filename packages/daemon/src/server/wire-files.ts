import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CommandEnvelope, InputFile, OutputFile } from '@browsermcp/protocol';
import { inputPathsOf, ToolError } from '@browsermcp/tools';
import mime from 'mime-types';
import type { NodeFileAccess } from '../local/files.js';

/** What one command may upload to a browser over its WebSocket, all files together (base64 adds a third). */
export const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;

/**
 * For a browser away from the disk (an extension): the files the command's tool reads, read here under the daemon's
 * file policy (the same roots as a launched browser), to travel with the command. Throws a ToolError the agent can
 * act on.
 */
export async function readInputFiles(files: NodeFileAccess | undefined, command: CommandEnvelope): Promise<InputFile[]> {
  const paths = inputPathsOf(command.name, command.payload);
  if (!paths.length || !files) return [];
  const real = await Promise.all(paths.map((path) => files.readable(path)));
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

/** Writes what a command's tool saved in a browser away from the disk; throws a ToolError when one is refused. */
export async function writeOutputFiles(files: NodeFileAccess | undefined, outputs: readonly OutputFile[]): Promise<void> {
  if (!files) throw new ToolError('This daemon saves no files for this browser (it has no output directory).');
  for (const output of outputs) await files.writeOutput(output.name, Buffer.from(output.data, 'base64'));
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
