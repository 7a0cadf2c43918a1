// Fails when a package's source imports itself in a circle (type-only imports count: a cycle of types is still a
// cycle of rooms), file by file or folder by folder (a folder's files importing another folder's that import it back:
// daemon/src/server ↔ cluster once). Part of `npm test`. Run alone: `node scripts/import-cycles.mjs`.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = [
  'packages/protocol/src',
  'packages/tools/src',
  'packages/daemon/src',
  'packages/gateway/src',
  'packages/client/src',
  'apps/extension/src',
  'packages/testkit/src',
  'packages/realapps/src',
  'bench/src',
];
// `import … from './x.js'` and `export … from './x.js'`, over several lines too; bare package names are not ours.
const IMPORT = /^(?:import|export)\s[^;]*?\sfrom\s+['"](\.[^'"]+)['"]/gm;

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(path) && !/\.test\.tsx?$/.test(path) ? [path] : [];
  });
}

/** Each source file of `dir` with the files of `dir` it imports. */
function importGraph(dir) {
  return new Map(
    sourceFiles(dir).map((file) => [
      file,
      [...readFileSync(file, 'utf8').matchAll(IMPORT)]
        .map((m) => resolve(dirname(file), m[1]).replace(/\.js$/, ''))
        // './x.js' is x.ts or x.tsx (a React page), whichever is there.
        .map((to) => (/\.tsx?$/.test(to) ? to : existsSync(`${to}.tsx`) ? `${to}.tsx` : `${to}.ts`)),
    ]),
  );
}

/**
 * The same graph between the folders of `dir` (a file's first folder under it; the files at its top, such as
 * index.ts, stand above the folders and are left out), with the folder names relative to the repository.
 */
function folderGraph(dir) {
  const folderOf = (file) => {
    const parts = relative(dir, file).split('/');
    return parts.length > 1 ? join(dir, parts[0]) : undefined;
  };
  const graph = new Map();
  for (const [file, targets] of importGraph(dir)) {
    const from = folderOf(file);
    if (from === undefined) continue;
    if (!graph.has(from)) graph.set(from, []);
    for (const to of targets.map(folderOf)) if (to !== undefined && to !== from && !graph.get(from).includes(to)) graph.get(from).push(to);
  }
  return graph;
}

/** Every cycle's path, as names relative to the repository (one per back edge a depth-first walk meets). */
function cyclesIn(graph) {
  const cycles = [];
  const stack = [];
  const onStack = new Set();
  const done = new Set();
  const walk = (file) => {
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (onStack.has(to)) cycles.push([...stack.slice(stack.indexOf(to)), to].map((f) => relative(root, f)).join(' → '));
      else if (!done.has(to)) walk(to);
    }
    stack.pop();
    onStack.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) walk(file);
  return cycles;
}

const found = SOURCES.flatMap((dir) => [...cyclesIn(importGraph(join(root, dir))), ...cyclesIn(folderGraph(join(root, dir))).map((c) => `folders: ${c}`)]);
if (found.length) {
  console.error(`Import cycles (move what both sides need to a module of its own):\n${found.map((c) => `  ${c}`).join('\n')}`);
  process.exit(1);
}
console.log(`No import cycles, between files or folders, in ${SOURCES.length} packages' sources.`);
