/**
 * The repository's TypeScript import graph, read from the source text: every `import … from`,
 * `export … from`, side-effect `import '…'` and dynamic `import('…')` (a dynamic import is an edge
 * like any other: a cycle hidden behind `await import` is still a cycle). Relative specifiers
 * resolve to files; the plugin's package name resolves to its source, as its manifest's exports
 * say; anything else is an external package.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface Edge {
  from: string;
  /** A repository file (relative to the root), or the bare name of an external package. */
  to: string;
  specifier: string;
  external: boolean;
  typeOnly: boolean;
}

const IMPORT = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The plugin's exports (its manifest names its source in the repository: pack-manifest.mjs). */
function packagePaths(): Map<string, string> {
  const dir = join('packages', 'agents-plugin-tts');
  type Target = string | { default: string };
  const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string; exports: Record<string, Target> };
  return new Map(
    Object.entries(manifest.exports)
      .map(([path, target]) => [path, typeof target === 'string' ? target : target.default] as const)
      .filter(([, source]) => source.endsWith('.ts'))
      .map(([path, source]) => [join(manifest.name, path), join(dir, source)]),
  );
}

function resolveFile(fromFile: string, specifier: string): string {
  const base = join(dirname(fromFile), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, join(base, 'index.ts')]) {
    try {
      if (statSync(join(ROOT, candidate)).isFile()) return candidate;
    } catch {
      // try the next form
    }
  }
  return base;
}

export function importsOf(file: string, paths = packagePaths()): Edge[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const edges: Edge[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const specifier = m[3] ?? m[4]!;
    const typeOnly = m[2] !== undefined;
    if (specifier.startsWith('.')) {
      edges.push({ from: file, to: resolveFile(file, specifier), specifier, external: false, typeOnly });
    } else if (paths.has(specifier)) {
      edges.push({ from: file, to: paths.get(specifier)!, specifier, external: false, typeOnly });
    } else {
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
      edges.push({ from: file, to: name, specifier, external: true, typeOnly });
    }
  }
  return edges;
}

/** Every cycle's files, one strongly connected component of more than one file (or a self-import) each. */
export function cycles(files: readonly string[], edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) if (!e.external && next.has(e.to)) next.get(e.from)?.push(e.to);
  // Tarjan's algorithm, iteration-free recursion depth is fine for a few hundred files.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || next.get(v)!.includes(v)) found.push(component.sort());
    }
  };
  for (const f of files) if (!order.has(f)) visit(f);
  return found;
}

/** The folder of a file, for the folder graph: the plugin's top-level folders, the app's src/ folders. */
export function folderOf(file: string): string {
  const parts = file.split('/');
  if (file.startsWith('packages/agents-plugin-tts/src/')) return parts.length > 4 ? parts.slice(0, 4).join('/') : 'packages/agents-plugin-tts/src';
  if (file.startsWith('src/')) return parts.length > 2 ? parts.slice(0, 2).join('/') : 'src';
  return dirname(file);
}
