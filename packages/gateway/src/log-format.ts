import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const SKIP = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId']);

/** One pino JSON line as a short human line: `22:35:27 INFO  tool call tool=browser_click ms=31 ok=true`. */
export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = new Date(typeof entry.time === 'number' ? entry.time : Date.now()).toTimeString().slice(0, 8);
  const fields = Object.entries(entry)
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`);
  return [time, LEVELS[entry.level as number] ?? 'INFO ', entry.msg ?? '', ...fields].join(' ').trimEnd();
}

/** A stream for Fastify's logger that writes human lines to `out` (stderr keeps stdout free for stdio MCP). */
export function humanLogStream(out: NodeJS.WritableStream = process.stderr): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) out.write(`${formatLogLine(line)}\n`);
      done();
    },
  });
}
