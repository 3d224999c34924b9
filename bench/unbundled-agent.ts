/**
 * The worker as it ran before it was bundled: src/agent.ts compiled alone beside tsc's output in
 * dist/ (which the bundle leaves in place), so its imports load module by module from dist/ and
 * node_modules. For benchmarks that put the bundle beside it; removed when the process exits.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

export async function writeUnbundledAgent(root: string): Promise<string> {
  const outfile = join(root, 'dist', 'agent.unbundled.js');
  await build({ entryPoints: [join(root, 'src', 'agent.ts')], bundle: false, format: 'esm', platform: 'node', target: 'node20', outfile, logLevel: 'error' });
  process.on('exit', () => rmSync(outfile, { force: true }));
  return outfile;
}
