import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { jsonRpcError, parseMessage } from '@browsermcp/protocol';

/**
 * MCP over stdio: one JSON-RPC message per line. Unlike the SDK's, a malformed line is answered (-32700 or -32600)
 * instead of only reported, so the client learns what it sent wrong.
 */
export class LineStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private buffer = '';
  private closed = false;
  private ended!: () => void;
  /** Resolves once the transport closed (stdin ended), whoever listens to onclose. */
  readonly done = new Promise<void>((resolve) => {
    this.ended = resolve;
  });

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.input.setEncoding('utf8');
    this.input.on('data', (chunk: string) => this.receive(chunk));
    this.input.once('end', () => void this.close());
    this.input.once('close', () => void this.close());
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const parsed = parseMessage(line);
      if (!parsed.ok) {
        void this.send(jsonRpcError(parsed.id, parsed.error.code, parsed.error.message) as JSONRPCMessage);
        continue;
      }
      if (parsed.kind === 'batch') {
        void this.send(jsonRpcError(null, -32600, 'Batches are not supported over stdio: send one message per line.') as JSONRPCMessage);
        continue;
      }
      this.onmessage?.(parsed.message as JSONRPCMessage);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    this.output.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
    this.ended();
  }
}
