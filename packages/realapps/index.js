// The built pages, as the fixture server serves them: URL path → file (dist/ is made by `node build.mjs`).
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('./dist/', import.meta.url));

/** Every built page and bundle under /realapps/, by the path it is served at. */
export function realAppFiles() {
  return Object.fromEntries(readdirSync(dist).map((name) => [`/realapps/${name}`, `${dist}${name}`]));
}
