/**
 * The package's manifest has two forms. In the repository each export names the TypeScript source
 * (`./src/….ts`) by default, so the app, its tests and every process it spawns (tsx, from any
 * working directory) run the plugin's current source with no build step; under the
 * `firstword-compiled` condition it names the compiled files, which the production worker runs
 * (`node --conditions=firstword-compiled dist/agent.js`). Packed, the exports are that compiled
 * form alone (`./dist/….js` with `.d.ts` beside them): a consumer sets no condition.
 *
 *   node scripts/pack-manifest.mjs publish   package.json → the dist form (the source form is kept
 *                                            in package.source.json); `npm pack` runs it (prepack)
 *   node scripts/pack-manifest.mjs restore   back to the source form (postpack)
 */
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const dir = join(dirname(new URL(import.meta.url).pathname), '..');
const manifest = join(dir, 'package.json');
const kept = join(dir, 'package.source.json');

const COMPILED = 'firstword-compiled';

function toDist(target) {
  return typeof target === 'object' && target !== null && COMPILED in target ? target[COMPILED] : target;
}

const mode = process.argv[2];
if (mode === 'publish') {
  if (existsSync(kept)) throw new Error(`${kept} exists: restore first`);
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  copyFileSync(manifest, kept);
  pkg.exports = Object.fromEntries(Object.entries(pkg.exports).map(([path, target]) => [path, toDist(target)]));
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (mode === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  throw new Error('usage: pack-manifest.mjs publish|restore');
}
