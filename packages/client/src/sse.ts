/** One dispatched server-sent event. `id` is the stream's last event ID at dispatch time. */
export interface SSEEvent {
  data: string;
  event: string;
  id: string | undefined;
}

/**
 * The event-stream parser of the HTML standard (§9.2.6): lines end in CRLF, LF or CR (also when a CRLF is split
 * between chunks); `:` starts a comment; `data` lines join with "\n"; the last event ID persists across events and
 * reconnections; `retry` takes digits only; an event still open when the stream ends is dropped.
 * The BOM is left to TextDecoder, which strips it.
 */
export class SSEParser {
  /** Last event ID (sent back as Last-Event-ID when reconnecting). */
  id: string | undefined;
  /** Reconnection time in ms from the last `retry:` field. */
  retry: number | undefined;
  private buf = '';
  private data = '';
  private type = '';
  private idBuf: string | undefined;
  private skipLF = false;

  constructor(private readonly onEvent: (event: SSEEvent) => void) {}

  /** Feeds decoded text. */
  push(chunk: string): void {
    if (this.skipLF && chunk[0] === '\n') chunk = chunk.slice(1);
    // A CR at the end of a chunk ends a line; an LF starting the next chunk belongs to it.
    this.skipLF = chunk.endsWith('\r');
    const lines = (this.buf + chunk).split(/\r\n|\r|\n/);
    this.buf = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  /** Forgets a half-read event before a new connection; the last event ID and retry stay. */
  reset(): void {
    this.buf = this.data = this.type = '';
    this.idBuf = this.id;
    this.skipLF = false;
  }

  private line(line: string): void {
    if (line === '') {
      this.id = this.idBuf;
      if (this.data) this.onEvent({ data: this.data.slice(0, -1), event: this.type || 'message', id: this.id });
      this.data = this.type = '';
      return;
    }
    if (line[0] === ':') return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'data') this.data += `${value}\n`;
    else if (field === 'event') this.type = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.idBuf = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retry = +value;
  }
}

/** Reads a byte stream into the parser until it ends or `stop()` says so; always releases the stream. */
export async function readSSE(body: ReadableStream<Uint8Array>, parser: SSEParser, stop: () => boolean): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
      if (stop()) return;
    }
    parser.push(decoder.decode());
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
