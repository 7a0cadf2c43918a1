// Nothing in the repository points outside it: every relative link of a Markdown file leads to a file or folder of
// the repository, and every Markdown file a source names (`see docs/architecture.md`) is one the repository has. A
// clone has no folder beside it; a page a comment sends the reader to must be there.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean)
  .filter((f) => existsSync(join(root, f)));
const markdownNames = new Set(tracked.filter((f) => f.endsWith('.md')).map((f) => basename(f)));
const problems = [];

const inside = (path) => !relative(root, path).startsWith('..');

// Markdown: [text](target), not a URL, a mail address or an anchor of the same page. CHANGELOGs quote the past.
for (const file of tracked.filter((f) => f.endsWith('.md') && !f.endsWith('CHANGELOG.md'))) {
  const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    const path = resolve(join(root, dirname(file)), decodeURIComponent(target.split('#')[0]));
    if (!inside(path)) problems.push(`${file}: links outside the repository: ${target}`);
    else if (!existsSync(path)) problems.push(`${file}: links to a missing file: ${target}`);
  }
  // A path written in the text that climbs out of the repository (up past its root); one a package writes
  // (`../../tsconfig.base.json` in a package's tsconfig) leads into it from a package's folder.
  for (const [path] of text.matchAll(/(?<![\w/.])(?:\.\.\/)+[\w.-]+(?:\/[\w.-]+)*/g)) {
    const fromPackage = resolve(join(root, 'packages', 'any'), path);
    if (!inside(resolve(join(root, dirname(file)), path)) && !(inside(fromPackage) && existsSync(fromPackage)))
      problems.push(`${file}: names a path outside the repository: ${path}`);
  }
}

// Sources: a page a comment sends the reader to (a name in capitals such as SECURITY.md, or one under docs/ or ../)
// exists here, by its path from the root, from the file, or its name alone (a package's README.md). Names in code
// are files the code makes (session.md), not pages.
const SOURCES = /^(packages|apps|bench|scripts)\/.*\.(ts|tsx|mts|mjs|js)$/;
const PAGE = /^(?:\.\.\/|docs\/|(?:[\w-]+\/)*[A-Z][A-Z0-9_-]*\.md$)/;
for (const file of tracked.filter((f) => SOURCES.test(f) && !f.includes('/dist/') && !f.endsWith('generated.ts'))) {
  const comments = (readFileSync(join(root, file), 'utf8').match(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g) ?? []).join('\n');
  for (const [name] of comments.matchAll(/(?:\.\.?\/)*[\w-]+(?:\/[\w.-]+)*\.md\b/g)) {
    if (!PAGE.test(name)) continue;
    if (name.startsWith('../') && !inside(resolve(join(root, dirname(file)), name))) {
      problems.push(`${file}: names a page outside the repository: ${name}`);
      continue;
    }
    // A path up from the file is found from the file only, inside the repository (not beside it, as on this machine).
    const fromFile = resolve(join(root, dirname(file)), name);
    const found = name.startsWith('../')
      ? inside(fromFile) && existsSync(fromFile)
      : existsSync(join(root, name)) || existsSync(fromFile) || markdownNames.has(basename(name));
    if (!found) problems.push(`${file}: names a page the repository does not have: ${name}`);
  }
}

if (problems.length) {
  console.error(`Pages pointed at that a clone does not have:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`doc links: every link and named page is in the repository (${tracked.length} files).`);
