// Packs every public package as it would be published (pnpm pack: workspace: and catalog: versions written out;
// from the dist/ its build made) and checks the tarball: @arethetypeswrong/cli (types resolve for import and require, in every
// module resolution) and publint (package.json fields point at files the tarball holds). Exits 1 on any problem.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const root = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = ['protocol', 'tools', 'daemon', 'gateway', 'client'];
const attw = join(root, 'node_modules', '.bin', 'attw');
// The client's ./iife is the <script> build (window.BrowserMCP), an ES2022 script in a "type": "module" package: an
// import of it runs it, a require() of it has nothing to return and is not offered. Its main entry serves both.
const ATTW_ARGS = { client: ['--ignore-rules', 'cjs-resolves-to-esm'] };
let failed = 0;

for (const name of process.argv.slice(2).length ? process.argv.slice(2) : PACKAGES) {
  const dir = join(root, 'packages', name);
  const out = mkdtempSync(join(tmpdir(), `bmcp-pack-${name}-`));
  try {
    // Packs what is built: every caller builds first (npm test's setup, the release script), so prepack's build would
    // be a second one (about a minute of the test run). A package that was not built is refused, not packed empty.
    if (!existsSync(join(dir, 'dist'))) throw new Error(`${name} has no dist/: build it first (npx pnpm@12.4.2 -r build)`);
    execFileSync('npx', ['-y', 'pnpm@12.4.2', 'pack', '--pack-destination', out, '--config.ignore-scripts=true'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = join(
      out,
      readdirSync(out).find((f) => f.endsWith('.tgz')),
    );
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    try {
      execFileSync(attw, [tarball, '--format', 'table-flipped', ...(ATTW_ARGS[name] ?? [])], { stdio: 'pipe' });
      console.log(`${pkg.name}: attw ok`);
    } catch (err) {
      failed++;
      console.log(`${pkg.name}: attw found problems\n${err.stdout}`);
    }
    if (pkg.mcpName) {
      // The MCP registry entry must name this package at this version (scripts/sync-server-json.mjs keeps it so).
      const server = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8'));
      const entry = server.packages?.find((p) => p.registryType === 'npm');
      const wrong = [
        server.name !== pkg.mcpName && `name ${server.name} is not mcpName ${pkg.mcpName}`,
        server.version !== pkg.version && `version ${server.version} is not ${pkg.version}`,
        entry?.identifier !== pkg.name && `its npm package is ${entry?.identifier}, not ${pkg.name}`,
        entry?.version !== pkg.version && `its npm package version ${entry?.version} is not ${pkg.version}`,
      ].filter(Boolean);
      if (wrong.length) {
        failed++;
        console.log(`${pkg.name}: server.json: ${wrong.join('; ')} (run node scripts/sync-server-json.mjs)`);
      }
    }
    const bytes = readFileSync(tarball);
    const { messages } = await publint({ pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) }, strict: true });
    if (messages.length) {
      failed++;
      for (const m of messages) console.log(`${pkg.name}: publint ${m.type}: ${formatMessage(m, pkg)}`);
    } else {
      console.log(`${pkg.name}: publint ok`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
if (failed) {
  console.log(`\n${failed} package check(s) failed.`);
  process.exit(1);
}
