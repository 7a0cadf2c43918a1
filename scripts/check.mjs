// What `npm test` runs after its setup (install + build): typecheck every package, check the packed packages, then
// each package's tests in the workspace's order, one at a time (the browser suites share two cores). Stops at the
// first failure, as `pnpm -r` does, and ends with how long each part took, so a slower suite shows in every run.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PNPM = ['-y', 'pnpm@12.4.2'];
const timings = [];

function step(name, command, args, cwd = root) {
  const started = Date.now();
  const { status } = spawnSync(command, args, { cwd, stdio: 'inherit' });
  timings.push([name, Date.now() - started]);
  if (status !== 0) {
    report();
    console.error(`\n${name} failed (exit ${status}).`);
    process.exit(status ?? 1);
  }
}

function report() {
  const total = timings.reduce((sum, [, ms]) => sum + ms, 0);
  console.log('\nHow long each part took:');
  for (const [name, ms] of timings) console.log(`  ${name.padEnd(28)} ${(ms / 1000).toFixed(1).padStart(7)} s`);
  console.log(`  ${'total (after setup)'.padEnd(28)} ${(total / 1000).toFixed(1).padStart(7)} s`);
}

// Two at a time: type checks use no browser, and tsc keeps one core busy.
step('typecheck (every package)', 'npx', [...PNPM, '-r', '--workspace-concurrency=2', 'typecheck']);
step('import cycles', 'node', ['scripts/import-cycles.mjs']);
step('package check', 'node', ['scripts/check-packages.mjs']);
// The workspace's packages in pnpm's (dependency) order.
const dirs = execFileSync('npx', [...PNPM, '-r', '--workspace-concurrency=1', 'exec', 'pwd'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .map((line) => line.trim())
  .filter(Boolean);
for (const dir of dirs) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (!pkg.scripts?.test) continue;
  // npm runs a package script as pnpm does (node_modules/.bin on the PATH), without fetching pnpm again per package.
  step(`tests ${relative(root, dir)}`, 'npm', ['run', '--silent', 'test'], dir);
}
report();
