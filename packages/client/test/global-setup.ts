import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The browser and conformance tests load dist/ (the IIFE, the ESM build); refuse to test a stale build.
export default function checkBuild(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const built = `${root}dist/index.global.js`;
  if (!existsSync(built)) throw new Error('dist/ is missing: run `pnpm --filter @browsermcp/client build` before the tests.');
  const builtAt = statSync(built).mtimeMs;
  const stale = readdirSync(`${root}src`).filter((f) => statSync(`${root}src/${f}`).mtimeMs > builtAt);
  if (stale.length) throw new Error(`dist/ is older than src/${stale.join(', src/')}: run \`pnpm --filter @browsermcp/client build\` first.`);
}
