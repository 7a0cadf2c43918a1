import { NodeFileAccess } from '@browsermcp/daemon';
import { keyFilesOwner } from './backends/session-files.js';
import type { ToolResult } from '@browsermcp/tools';

/** Writes one call into its session's record. */
export type RecordCall = (label: string, tool: string, args: Record<string, unknown>, result: ToolResult | { error: string }) => void;

/** Records kept open at once; the oldest is let go past it (a later call of that session starts a new file). */
const MAX_OPEN_RECORDS = 10_000;

/**
 * --save-session: every tool call of a session and its answer, in Markdown, in `session-<time>-<session>/session.md`
 * under the caller's own output directory (the same one its screenshots go to), as @playwright/mcp writes it.
 * Images are named, not written out. Written as every saved file is (NodeFileAccess): in the caller's own folder,
 * which must be this user's, never through a link, and counted toward --output-max-size.
 */
export class SessionRecords {
  private readonly files = new Map<string, string>();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: { outputDir: string; outputMaxBytes?: number | undefined },
    private readonly warn: (message: string) => void,
  ) {}

  /** The recorder for one caller: its API key's hash, or undefined where one owner has every file (stdio, no auth). */
  for(keyHash: string | undefined): RecordCall {
    // The same owner as the key's screenshots: one folder per key.
    const owner = keyHash === undefined ? undefined : keyFilesOwner(keyHash);
    const files = new NodeFileAccess({ ...this.options, sessionOwner: async () => owner }).forSession('records');
    return (label, tool, args, result) => {
      const name = this.fileFor(owner ?? '', label);
      const text = entry(tool, args, result);
      // One append after another: the entries of a session stay in call order.
      this.queue = this.queue.then(async () => {
        await files.appendOutput(name, text).catch((err: Error) => this.warn(`--save-session: cannot write ${name}: ${err.message}`));
      });
    };
  }

  /** Resolves when everything recorded so far is written. */
  flushed(): Promise<void> {
    return this.queue;
  }

  /** The record's name under the caller's folder: one per session, named when its first call is recorded. */
  private fileFor(owner: string, label: string): string {
    const key = `${owner}\0${label}`;
    let file = this.files.get(key);
    if (!file) {
      file = `session-${new Date().toISOString().replace(/[:.]/g, '-')}-${label.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 12)}/session.md`;
      this.files.set(key, file);
      if (this.files.size > MAX_OPEN_RECORDS) this.files.delete(this.files.keys().next().value!);
    }
    return file;
  }
}

function entry(tool: string, args: Record<string, unknown>, result: ToolResult | { error: string }): string {
  const lines = ['', `### Tool call: ${tool}`, '- Args', '```json', JSON.stringify(args, null, 2), '```'];
  if ('error' in result) {
    lines.push('- Error', '```', result.error, '```');
  } else {
    const parts = result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}${'mimeType' in part ? ` ${String(part.mimeType)}` : ''}]`));
    lines.push(result.isError ? '- Error' : '- Result', '```', parts.join('\n'), '```');
  }
  return `${lines.join('\n')}\n`;
}
