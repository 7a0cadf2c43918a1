// What `npm test` runs after its setup (install + build): the quick checks first (lint and format, import cycles, file
// lengths, doc links), then the typecheck of every package, the packed-package check and each package's tests as jobs
// in two lanes, longest first: the suites spend much of their time waiting on browsers, pages and timers (the machine
// half idle), so two lanes fill that time. Every job's lines are prefixed with its name. The files that drive the
// person's headed browser run last, alone. Stops starting jobs at the first failure, lets the running ones end (their
// browsers closed by their own teardown), and ends with how long each part took, so a slower suite shows in every run.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PNPM = ['-y', 'pnpm@12.4.2'];
const timings = [];
const started = Date.now();

function step(name, command, args, cwd = root) {
  const begun = Date.now();
  const { status } = spawnSync(command, args, { cwd, stdio: 'inherit' });
  timings.push([name, Date.now() - begun]);
  if (status !== 0) fail(name, status);
}

/**
 * Runs a job asynchronously (the other lane must keep draining its pipes) and resolves to its exit status. With
 * `tagged`, its output goes line by line with `[name]` before each (two lanes write at once); otherwise as it comes.
 */
function laneStep(name, command, args, cwd, { tagged = false } = {}) {
  const begun = Date.now();
  const child = spawn(command, args, { cwd, stdio: tagged ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  if (tagged) {
    for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => console.log(`[${name}] ${line}`));
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      timings.push([name, Date.now() - begun]);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

function fail(name, status) {
  report();
  console.error(`\n${name} failed (exit ${status}).`);
  process.exit(status ?? 1);
}

function report() {
  console.log('\nHow long each part took:');
  for (const [name, ms] of timings) console.log(`  ${name.padEnd(36)} ${(ms / 1000).toFixed(1).padStart(7)} s`);
  console.log(`  ${'total (after setup, wall clock)'.padEnd(36)} ${((Date.now() - started) / 1000).toFixed(1).padStart(7)} s`);
}

// The quick checks, one after the other: a mistake here fails in seconds.
// The linter and the formatter (Biome, biome.jsonc): any warning, or a file not as the formatter writes it, fails.
step('lint and format (biome ci)', 'npx', ['biome', 'ci', '--error-on-warnings', '.']);
step('import cycles', 'node', ['scripts/import-cycles.mjs']);
step('file lengths', 'node', ['scripts/file-lengths.mjs']);
// Nothing points outside the repository: Markdown links, and the pages comments send readers to.
step('doc links', 'node', ['scripts/doc-links.mjs']);
// The workspace's packages in pnpm's (dependency) order.
const dirs = execFileSync('npx', [...PNPM, '-r', '--workspace-concurrency=1', 'exec', 'pwd'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .map((line) => line.trim())
  .filter(Boolean);
const packages = dirs
  .map((dir) => ({ dir, name: `tests ${relative(root, dir)}`, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ pkg }) => pkg.scripts?.test);

/**
 * A package's test files that drive the person's headed browser (they start the person rig): Chrome delivers input to
 * a background tab later on a loaded machine, so they run last, alone, not beside another lane.
 */
function headedFiles(dir) {
  if (!existsSync(join(dir, 'test'))) return [];
  return readdirSync(join(dir, 'test'))
    .filter((f) => f.endsWith('.test.ts') && /person-(rig|browser)/.test(readFileSync(join(dir, 'test', f), 'utf8')))
    .map((f) => `test/${f}`);
}

// npm runs a package script as pnpm does (node_modules/.bin on the PATH), without fetching pnpm again per package.
const alone = [];
const jobs = [
  // Two packages at a time: type checks use no browser, and tsc keeps one core busy.
  { name: 'typecheck (every package)', command: 'npx', args: [...PNPM, '-r', '--workspace-concurrency=2', 'typecheck'], cwd: root },
  { name: 'package check', command: 'node', args: ['scripts/check-packages.mjs'], cwd: root },
  ...packages.map(({ dir, name }) => {
    const headed = headedFiles(dir);
    if (headed.length) alone.push({ dir, name: `${name} (headed, alone)`, args: headed });
    return { name, command: 'npm', args: ['run', '--silent', 'test', '--', ...headed.flatMap((f) => ['--exclude', f])], cwd: dir };
  }),
];
/**
 * The longest jobs, longest first (seconds on the project's machine: CONTRIBUTING.md): taken first, they end about
 * together, and the short ones fill the lanes' ends. The rest follow in the workspace's order.
 */
const LONGEST_FIRST = [
  'tests packages/gateway',
  'tests packages/tools',
  'tests packages/daemon',
  'typecheck (every package)',
  'tests bench',
  'tests packages/client',
  'package check',
];
const rank = (name) => (LONGEST_FIRST.includes(name) ? LONGEST_FIRST.indexOf(name) : LONGEST_FIRST.length);
const queue = jobs.map((job, i) => ({ ...job, i })).sort((a, b) => rank(a.name) - rank(b.name) || a.i - b.i);

let failure;
async function lane() {
  while (queue.length && !failure) {
    const { name, command, args, cwd } = queue.shift();
    const status = await laneStep(name, command, args, cwd, { tagged: true });
    if (status !== 0) failure ??= [name, status];
  }
}
await Promise.all([lane(), lane()]);
if (failure) fail(...failure);
for (const { dir, name, args } of alone) {
  const status = await laneStep(name, 'npm', ['run', '--silent', 'test', '--', ...args], dir);
  if (status !== 0) fail(name, status);
}
report();
