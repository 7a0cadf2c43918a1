import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { call, useHarness } from './harness.js';

// The engine's output on every fixture page, byte for byte, against files kept in test/golden/: a change to the
// in-page code that changes a snapshot shows here as a diff to review. `UPDATE_GOLDEN=1` rewrites the files after a
// deliberate change (say which in the changeset).

const h = useHarness();
const DIR = join(dirname(fileURLToPath(import.meta.url)), 'golden');

const PAGES = [
  'index.html',
  'form.html',
  'states.html',
  'links.html',
  'frames.html',
  'dialogs.html',
  'console.html',
  'covered.html',
  'spa.html',
  'table?rows=40',
];

/** Ports change from run to run: origins are written as names. */
function normalize(text: string): string {
  return text.replaceAll(h.server.origin, 'http://ORIGIN').replaceAll(h.server.crossOrigin, 'http://CROSS');
}

async function matches(name: string, text: string): Promise<void> {
  const file = join(DIR, `${name.replace(/[^a-z0-9]+/gi, '_')}.txt`);
  const actual = normalize(text);
  if (process.env.UPDATE_GOLDEN) {
    await mkdir(DIR, { recursive: true });
    await writeFile(file, actual);
    return;
  }
  expect(actual).toBe(await readFile(file, 'utf8'));
}

describe('snapshots match the golden files', () => {
  for (const page of PAGES) {
    it(page, async () => {
      const s = await h.session();
      const navigated = await call(s, 'browser_navigate', { url: h.server.url(`/${page}`) });
      // covered.html shows its "Late" button 300 ms after load: compared once it is there.
      if (page === 'covered.html') await call(s, 'browser_wait_for', { text: 'Late' });
      else await matches(`navigate ${page}`, navigated);
      await matches(`snapshot ${page}`, await call(s, 'browser_snapshot'));
      await matches(`snapshot depth 2 ${page}`, await call(s, 'browser_snapshot', { depth: 2 }));
      await matches(`find ${page}`, await call(s, 'browser_find', { regex: '[a-z]' }));
      await matches(`text ${page}`, await call(s, 'browser_get_text', {}));
    });
  }

  it('a cut snapshot and a target', async () => {
    const s = await h.session({ snapshotMaxChars: 1500 });
    await matches('cut table', await call(s, 'browser_navigate', { url: h.server.url('/table?rows=300') }));
    await matches('target table', await call(s, 'browser_snapshot', { target: 'table' }));
  });
});
