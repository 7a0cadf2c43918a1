// Fails when a source file grows past 450 lines: a file that long holds more than one job (split it by job and name
// each room for what it does; docs/style.md). Part of `npm test`. Run alone: `node scripts/file-lengths.mjs`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MAX_LINES = 450;
const root = fileURLToPath(new URL('..', import.meta.url));
// Every tracked TypeScript source of the packages, the extension and the benchmark (the in-page bundle is generated).
const files = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', '--', 'packages/*/src/**.ts', 'apps/*/src/**.ts', 'bench/src/**.ts'],
  { cwd: root, encoding: 'utf8' },
)
  .split('\n')
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('/generated.ts'));
const long = files.map((file) => ({ file, lines: readFileSync(`${root}/${file}`, 'utf8').split('\n').length - 1 })).filter(({ lines }) => lines > MAX_LINES);
if (long.length) {
  for (const { file, lines } of long) console.error(`${file}: ${lines} lines (at most ${MAX_LINES}): split it by job`);
  process.exit(1);
}
console.log(`file lengths: ${files.length} source files, none over ${MAX_LINES} lines`);
