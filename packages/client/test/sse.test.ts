import { describe, expect, it } from 'vitest';
import { readSSE, SSEParser, type SSEEvent } from '../src/index.js';

function parse(...chunks: string[]): { events: SSEEvent[]; parser: SSEParser } {
  const events: SSEEvent[] = [];
  const parser = new SSEParser((e) => events.push(e));
  for (const c of chunks) parser.push(c);
  return { events, parser };
}

function bytes(...chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === 'string' ? new TextEncoder().encode(c) : c);
      controller.close();
    },
  });
}

describe('SSEParser', () => {
  it('joins multi-line data with newlines and strips one leading space', () => {
    const { events } = parse('data: {"a":\ndata:  1}\n\n');
    expect(events).toEqual([{ data: '{"a":\n 1}', event: 'message', id: undefined }]);
  });

  it('ignores comments and keeps the event type', () => {
    const { events } = parse(': keep-alive\n\nevent: ping\n: between\ndata: x\n\n');
    expect(events).toEqual([{ data: 'x', event: 'ping', id: undefined }]);
  });

  it('accepts CRLF, CR and LF line endings, also with a CRLF split between chunks', () => {
    const { events } = parse('data: a\r\n\r', '\ndata: b\r\rdata: c\n', '\n');
    expect(events.map((e) => e.data)).toEqual(['a', 'b', 'c']);
  });

  it('does not take a CR followed by a CR for one line ending', () => {
    const { events } = parse('data: a\r', '\r', 'data: b\r\n', '\r\n');
    expect(events.map((e) => e.data)).toEqual(['a', 'b']);
  });

  it('keeps the last event id across events and sets it even for an event without data', () => {
    const { events, parser } = parse('id: 1\ndata: a\n\ndata: b\n\nid: 2\nretry: 500\ndata: \n\n');
    expect(events.map((e) => [e.data, e.id])).toEqual([
      ['a', '1'],
      ['b', '1'],
      ['', '2'],
    ]);
    parser.push('id: 3\n\n');
    expect(parser.id).toBe('3');
    expect(parser.retry).toBe(500);
    expect(events).toHaveLength(3);
  });

  it('ignores an id containing NUL and a retry that is not all digits', () => {
    const { parser } = parse('id: 7\nretry: 100\n\nid: a\0b\nretry: 1.5\nretry: x\n\n');
    expect(parser.id).toBe('7');
    expect(parser.retry).toBe(100);
  });

  it('lets an empty id reset the last event id', () => {
    const { parser } = parse('id: 7\n\nid\n\n');
    expect(parser.id).toBe('');
  });

  it('reads a field without a colon as a field with an empty value', () => {
    const { events } = parse('data\ndata\n\n');
    expect(events[0]!.data).toBe('\n');
  });

  it('forgets a half-read event on reset but keeps the id and retry', () => {
    const { events, parser } = parse('id: 4\nretry: 20\n\ndata: half');
    parser.reset();
    parser.push('data: whole\n\n');
    expect(events).toEqual([{ data: 'whole', event: 'message', id: '4' }]);
    expect(parser.retry).toBe(20);
  });
});

describe('readSSE', () => {
  it('decodes characters split between chunks', async () => {
    const euro = new TextEncoder().encode('data: €\n\n');
    const events: SSEEvent[] = [];
    await readSSE(bytes(euro.slice(0, 7), euro.slice(7)), new SSEParser((e) => events.push(e)), () => false);
    expect(events[0]!.data).toBe('€');
  });

  it('drops an event the stream ended in the middle of', async () => {
    const events: SSEEvent[] = [];
    await readSSE(bytes('data: one\n\ndata: tw'), new SSEParser((e) => events.push(e)), () => false);
    expect(events.map((e) => e.data)).toEqual(['one']);
  });

  it('stops reading when asked to and releases the stream', async () => {
    let pulls = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      cancel() {
        cancelled = true;
      },
      pull(controller) {
        pulls++;
        controller.enqueue(new TextEncoder().encode(`data: ${pulls}\n\n`));
      },
    });
    const events: SSEEvent[] = [];
    await readSSE(body, new SSEParser((e) => events.push(e)), () => events.length >= 3);
    expect(events.map((e) => e.data)).toEqual(['1', '2', '3']);
    expect(cancelled).toBe(true);
  });
});
