// What `npm test` runs after its setup (install + build): lint and format-check (Biome), check the import cycles,
// file lengths and doc links, then the typecheck of every package beside the check of the packed packages, then each
// package's tests in the workspace's order. The gateway's suite, the longest, runs beside the others: it spends about
// half its time waiting on browsers, pages and timers (the machine half idle), so two lanes fill that time. Its lines
// are prefixed with its name; its files that drive the person's headed browser run last, alone. Stops at the first
// failure of a lane, as `pnpm -r` does, and ends with how long each part took, so a slower suite shows in every run.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PNPM = ['-y', 'pnpm@12.4.2'];
const timings = [];
const started = Date.now();
/** Packages whose tests run in a lane of their own, beside the others. */
const BESIDE = new Set(['packages/gateway']);

function step(name, command, args, cwd = root) {
  const begun = Date.now();
  const { status } = spawnSync(command, args, { cwd, stdio: 'inherit' });
  timings.push([name, Date.now() - begun]);
  if (status !== 0) fail(name, status);
}

/**
 * Runs a step asynchronously (another one at once must keep draining its pipes) and resolves to its exit status. With
 * `tagged`, its output goes line by line with `[name]` before each; otherwise as it comes. `timing` names it in the
 * report of how long each part took.
 */
function laneStep(name, command, args, cwd, { tagged = false, timing = name } = {}) {
  const begun = Date.now();
  const child = spawn(command, args, { cwd, stdio: tagged ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  if (tagged) {
    for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => console.log(`[${name}] ${line}`));
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      timings.push([timing, Date.now() - begun]);
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

// The linter and the formatter (Biome, biome.jsonc): any warning, or a file not as the formatter writes it, fails.
step('lint and format (biome ci)', 'npx', ['biome', 'ci', '--error-on-warnings', '.']);
step('import cycles', 'node', ['scripts/import-cycles.mjs']);
step('file lengths', 'node', ['scripts/file-lengths.mjs']);
// Nothing points outside the repository: Markdown links, and the pages comments send readers to.
step('doc links', 'node', ['scripts/doc-links.mjs']);
// The type check beside the package check (neither starts a browser): tsc takes the cores two packages at a time,
// and the package check is one process; together they fill the two cores.
const checks = [
  ['typecheck (every package)', 'npx', [...PNPM, '-r', '--workspace-concurrency=2', 'typecheck']],
  ['package check', 'node', ['scripts/check-packages.mjs']],
];
const checked = await Promise.all(checks.map(([name, command, args]) => laneStep(name, command, args, root, { tagged: true })));
checks.forEach(([name], i) => {
  if (checked[i] !== 0) fail(name, checked[i]);
});
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
 * a background tab later on a loaded machine, so they run last, alone, as they always did, not beside another lane.
 */
function headedFiles(dir) {
  return readdirSync(join(dir, 'test'))
    .filter((f) => f.endsWith('.test.ts') && /person-(rig|browser)/.test(readFileSync(join(dir, 'test', f), 'utf8')))
    .map((f) => `test/${f}`);
}

// npm runs a package script as pnpm does (node_modules/.bin on the PATH), without fetching pnpm again per package.
// The lane beside starts first: it is the longest.
const alone = [];
const beside = packages
  .filter(({ dir }) => BESIDE.has(relative(root, dir)))
  .map(({ dir, name }) => {
    const headed = headedFiles(dir);
    if (headed.length) alone.push({ dir, name: `${name} (headed, alone)`, args: headed });
    const exclude = headed.flatMap((f) => ['--exclude', f]);
    return laneStep(name, 'npm', ['run', '--silent', 'test', '--', ...exclude], dir, { tagged: true, timing: `${name} (beside)` }).then((status) => [
      name,
      status,
    ]);
  });
for (const { dir, name } of packages.filter(({ dir }) => !BESIDE.has(relative(root, dir)))) {
  const status = await laneStep(name, 'npm', ['run', '--silent', 'test'], dir);
  if (status !== 0) {
    // The lane beside ends on its own (its browsers closed by its own teardown) before the failure is reported.
    await Promise.all(beside);
    fail(name, status);
  }
}
for (const [name, status] of await Promise.all(beside)) if (status !== 0) fail(name, status);
for (const { dir, name, args } of alone) {
  const status = await laneStep(name, 'npm', ['run', '--silent', 'test', '--', ...args], dir);
  if (status !== 0) fail(name, status);
}
report();
