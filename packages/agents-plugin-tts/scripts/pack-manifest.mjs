/**
 * The package's manifest has two forms. In the repository its exports name the TypeScript source
 * (`./src/….ts`), so the app, its tests and every process it spawns (tsx, from any working
 * directory) run the plugin's current source with no build step. Packed or deployed, they name
 * the compiled files (`./dist/….js` with `.d.ts` beside them).
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

function toDist(target) {
  if (!target.startsWith('./src/') || !target.endsWith('.ts')) return target;
  const base = target.slice('./src/'.length, -'.ts'.length);
  return { types: `./dist/${base}.d.ts`, default: `./dist/${base}.js` };
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
