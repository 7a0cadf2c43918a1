import type { CommandEnvelope, InputFile, OutputFile, ResponseEnvelope } from '@browsermcp/protocol';
import { errorResult, inputPathsOf, savesNamedFile, ToolError } from '@browsermcp/tools';
import type { NodeFileAccess } from '../local/files.js';

export { MAX_UPLOAD_BYTES } from '../local/files.js';

/**
 * For a browser away from the disk (an extension): the files the command's tool reads, read here under the daemon's
 * file policy (the same roots as a launched browser), to travel with the command. Throws a ToolError the agent can
 * act on.
 */
export async function readInputFiles(files: NodeFileAccess | undefined, command: CommandEnvelope): Promise<InputFile[]> {
  const paths = inputPathsOf(command.name, command.payload);
  if (!paths.length || !files) return [];
  return files.readContents(paths);
}

/** A response with files the tool saved: written first; a refused write makes the call's answer an error. */
export async function withOutputsWritten(files: NodeFileAccess | undefined, response: ResponseEnvelope): Promise<ResponseEnvelope> {
  if (response.error !== undefined || !response.files?.length) return response;
  const { files: outputs, ...rest } = response;
  try {
    await writeOutputFiles(files, outputs);
    return rest;
  } catch (err) {
    return { ...rest, data: errorResult(err instanceof Error ? err.message : String(err)) };
  }
}

/** Writes what a command's tool saved in a browser away from the disk; throws a ToolError when one is refused. */
async function writeOutputFiles(files: NodeFileAccess | undefined, outputs: readonly OutputFile[]): Promise<void> {
  if (!files) throw new ToolError('This daemon saves no files for this browser (it has no output directory).');
  for (const output of outputs) await files.writeOutput(output.name, Buffer.from(output.data, 'base64'), { generated: output.generated === true });
}

/**
 * Where a file name the model gave a command lands, as the answer shows it (the client's workspace, else the output
 * directory), for a command that saves one: worked out here, during the call, where the client's roots are known.
 */
export async function namedOutputDirFor(files: NodeFileAccess | undefined, command: CommandEnvelope): Promise<string | undefined> {
  if (!files || !savesNamedFile(command.name, command.payload)) return undefined;
  return files.namedOutputDirectory();
}
