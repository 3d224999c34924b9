/**
 * A folder whose `node_modules` is the project's install with LiveKit's agents framework as npm
 * ships it: `@livekit/agents` and its plugins copied with every file in `patches/` reversed on
 * the copies, every other package a link to the project's own. The stock worker of
 * `--compare stock` runs from it, so "stock" means agents-js 1.9 without this project's fixes to
 * the framework (patches/, applied to the project's install by `npm ci`).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../scripts/stack/layout.js';

/** The framework and its plugins: a plugin imports the framework, so it must resolve the pristine copy. */
const isFramework = (name: string): boolean => name === 'agents' || name.startsWith('agents-plugin-');

/** The packages a patch file changes, from its `diff --git a/node_modules/<package>/…` lines. */
export function patchedPackages(patch: string): string[] {
  const names = new Set<string>();
  for (const m of patch.matchAll(/^diff --git a\/node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) names.add(m[1]!);
  return [...names];
}

export function pristineFramework(dir: string): string {
  const installed = join(REPO_ROOT, 'node_modules');
  const modules = join(dir, 'node_modules');
  if (existsSync(modules)) throw new Error(`${modules} already exists`);
  mkdirSync(join(modules, '@livekit'), { recursive: true });
  for (const entry of readdirSync(installed)) {
    if (entry !== '@livekit' && !entry.startsWith('.')) symlinkSync(join(installed, entry), join(modules, entry));
  }
  for (const entry of readdirSync(join(installed, '@livekit'))) {
    const [from, to] = [join(installed, '@livekit', entry), join(modules, '@livekit', entry)];
    if (isFramework(entry)) cpSync(from, to, { recursive: true });
    else symlinkSync(from, to);
  }
  const patchDir = join(REPO_ROOT, 'patches');
  for (const file of readdirSync(patchDir).filter((f) => f.endsWith('.patch'))) {
    const patch = readFileSync(join(patchDir, file), 'utf8');
    const outside = patchedPackages(patch).filter((name) => !name.startsWith('@livekit/') || !isFramework(name.slice('@livekit/'.length)));
    // A patch to anything but the copies would be reversed through a link, in the project's own install.
    if (outside.length > 0) throw new Error(`${file} patches ${outside.join(', ')}, which the pristine folder does not copy`);
    execFileSync('patch', ['--reverse', '--strip=1', '--silent', `--directory=${dir}`, `--input=${join(patchDir, file)}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  }
  return dir;
}
