import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

/**
 * The 2024-11-05 HTTP+SSE transport, server side: results go down one SSE stream, requests come in by POST.
 * Ours rather than the SDK's so the session id is 192 random bits and POST answers `{"status":"accepted"}`.
 */
export class LegacySseTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;
  private pingTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly sessionId: string,
    private readonly res: ServerResponse,
    private readonly endpoint: string,
    private readonly pingMs: number,
  ) {
    res.once('close', () => void this.close());
  }

  async start(): Promise<void> {
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Session-Id': this.sessionId,
    });
    this.write('endpoint', `${this.endpoint}?sessionId=${encodeURIComponent(this.sessionId)}`);
    if (this.pingMs > 0) {
      // Keeps proxies from closing an idle stream and lets the client see the server is alive.
      this.pingTimer = setInterval(() => this.write('ping', String(Date.now())), this.pingMs);
      this.pingTimer.unref();
    }
  }

  private write(event: string, data: string): void {
    if (this.closed) return;
    this.res.write(`event: ${event}\ndata: ${data}\n\n`);
  }

  /** A message the client POSTed to the endpoint. */
  receive(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('The SSE stream is closed.');
    this.write('message', JSON.stringify(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (!this.res.writableEnded) this.res.end();
    this.onclose?.();
  }
}
