import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownerDirName } from '@browsermcp/daemon';
import { expect, it } from 'vitest';
import { SessionRecords } from '../src/session-records.js';

// --save-session's records are saved files like any other: in the caller's own folder, never through a link, under
// --output-max-size. (The records of a real session, end to end: file-roots.test.ts.)
const answer = (text: string) => ({ content: [{ type: 'text' as const, text }] });

function records(outputDir: string, outputMaxBytes?: number): { records: SessionRecords; warnings: string[] } {
  const warnings: string[] = [];
  return { records: new SessionRecords({ outputDir, outputMaxBytes }, (m) => warnings.push(m)), warnings };
}

it('writes a record through no link: a link planted for the caller’s folder leaves its target untouched', async () => {
  const out = realpathSync(mkdtempSync(join(tmpdir(), 'bmcp-records-')));
  const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'bmcp-records-target-')));
  const victim = join(elsewhere, 'victim.txt');
  writeFileSync(victim, 'keep me');
  // Another local user planted the caller's folder as a link to somewhere they want written.
  symlinkSync(elsewhere, join(out, ownerDirName('key:abc')));
  const { records: r, warnings } = records(out);
  r.for('abc')('s1', 'browser_snapshot', {}, answer('page text the gateway must not write elsewhere'));
  await r.flushed();
  expect(readdirSync(elsewhere)).toEqual(['victim.txt']);
  expect(readFileSync(victim, 'utf8')).toBe('keep me');
  expect(warnings.join('\n')).toMatch(/--save-session: cannot write .*is not a directory \(a link or a file is in its place\)/);
});

it.skipIf(process.getuid?.() !== 0)('writes no record into an output directory another local user owns', async () => {
  const out = realpathSync(mkdtempSync(join(tmpdir(), 'bmcp-records-foreign-')));
  chownSync(out, 4242, 4242);
  const { records: r, warnings } = records(out);
  r.for(undefined)('s1', 'browser_navigate', { url: 'https://example.com' }, answer('ok'));
  await r.flushed();
  expect(readdirSync(out)).toEqual([]);
  expect(warnings.join('\n')).toContain('belongs to another user (uid 4242)');
});

it('counts records toward --output-max-size: the oldest saved files go first, the record being written stays', async () => {
  const out = realpathSync(mkdtempSync(join(tmpdir(), 'bmcp-records-size-')));
  const own = join(out, ownerDirName('key:abc'));
  mkdirSync(own, { mode: 0o700 });
  const old = join(own, 'old.png');
  writeFileSync(old, Buffer.alloc(1500));
  const { records: r } = records(out, 2000);
  const call = r.for('abc');
  for (let i = 0; i < 5; i++) call('s1', 'browser_snapshot', {}, answer('x'.repeat(200)));
  await r.flushed();
  expect(existsSync(old)).toBe(false);
  const [folder] = readdirSync(own);
  const record = join(own, folder!, 'session.md');
  expect(readFileSync(record, 'utf8').match(/### Tool call: browser_snapshot/g)).toHaveLength(5);
  expect(statSync(record).mode & 0o777).toBe(0o600);
});
