/**
 * The worker as one bundle (esbuild), after tsc has built dist/: `dist/agent.js` becomes the
 * worker and agent with the framework, the plugins and their dependencies inside, and beside it
 * the framework's job and inference process entries, which load the same shared chunks. Node
 * loads a few dozen files per process instead of ~870 ES modules; the loading alone cost
 * 2.1–2.4 CPU-seconds per job process on Node 20 (`npm run bench:import-cost`), 0.4× of that
 * bundled.
 *
 * Three things keep the bundle behaving as the separate files did:
 * - Code that finds files next to its own (a model, a worker thread's script, static web files)
 *   reads `import.meta` of the file it came from: each such use is rewritten to that file's URL,
 *   where tsc's output and node_modules still are. The URL is absolute: the bundle is built where
 *   it runs (every start builds first), and a bundle built in another directory counts as stale.
 * - Where the framework forks a process from its own directory (job, inference) or names an
 *   inference runner by its path (its end-of-turn model, our Smart Turn), `import.meta` is left
 *   alone: those files are entries here, written where those paths point, so every process loads
 *   the bundle's one copy of the framework.
 * - Native addons, and packages that locate files beside their own code at load time, stay
 *   outside and load from node_modules as before.
 *
 * Plain JavaScript: it runs before anything is compiled.
 */
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** Native addons, and packages that read their own files (data, worker threads, __dirname) at load. */
const OUTSIDE = [
  '@livekit/rtc-node',
  '@livekit/rtc-ffi-bindings',
  '@livekit/local-inference',
  'onnxruntime-node',
  '@echogarden/espeak-ng-emscripten',
  'pino',
  'thread-stream',
  'fluent-ffmpeg',
  'sharp',
];

const CHUNK_PREFIX = 'chunk-';
/** src/recovery/job-exits.ts wraps the pool's executor; in the bundle that is the bundle's copy. */
const BUNDLED_EXECUTOR = "Symbol.for('firstword.bundledJobExecutor')";
const STATE = '.bundle-state';

const frameworkDirOf = (root) => dirname(require.resolve('@livekit/agents', { paths: [root] }));

/** The entries, each written to dist/NAME.js; the framework's forks find theirs there by name. */
function entries(root) {
  const frameworkDir = frameworkDirOf(root);
  return {
    agent: join(root, 'src', 'agent.ts'),
    job_proc_lazy_main: join(frameworkDir, 'ipc', 'job_proc_lazy_main.js'),
    inference_proc_lazy_main: join(frameworkDir, 'ipc', 'inference_proc_lazy_main.js'),
    'inference/eot/runner': join(frameworkDir, 'inference', 'eot', 'runner.js'),
    'smart-turn-runner': join(root, 'src', 'turn', 'smart-turn-runner.ts'),
  };
}

/** Files whose `import.meta` must stay the bundle's own (see the header). */
function keepsOwnMeta(root) {
  const frameworkDir = frameworkDirOf(root);
  return new Set([
    join(root, 'src', 'agent.ts'),
    join(root, 'src', 'turn', 'smart-turn-executor.ts'),
    join(frameworkDir, 'ipc', 'job_proc_executor.js'),
    join(frameworkDir, 'ipc', 'inference_proc_executor.js'),
    join(frameworkDir, 'worker.js'),
  ]);
}

/** Where a bundled file lives unbundled: tsc's output for our sources, the file itself otherwise. */
function unbundledPath(root, file) {
  const src = join(root, 'src') + sep;
  return file.startsWith(src) ? join(root, 'dist', file.slice(src.length).replace(/\.ts$/, '.js')) : file;
}

function rewriteMetaPlugin(root) {
  const keep = keepsOwnMeta(root);
  return {
    name: 'import-meta-of-the-original-file',
    setup(build) {
      build.onLoad({ filter: /\.(ts|js|mjs)$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta') || keep.has(args.path)) return undefined;
        const loader = args.path.endsWith('.ts') ? 'ts' : 'js';
        const handsOverExecutor = args.path === join(root, 'src', 'recovery', 'job-exits.ts');
        const original = pathToFileURL(unbundledPath(root, args.path)).href;
        const rewritten = text
          .replaceAll('import.meta.url', '__firstwordMetaUrl')
          .replaceAll('import.meta.dirname', '__firstwordMetaDirname')
          .replaceAll('import.meta.filename', '__firstwordMetaFilename');
        if (rewritten.includes('import.meta')) throw new Error(`${args.path}: an import.meta use the bundle cannot place`);
        const prologue =
          `import { fileURLToPath as __firstwordToPath } from 'node:url';\n` +
          `const __firstwordMetaUrl = ${JSON.stringify(original)};\n` +
          `const __firstwordMetaFilename = __firstwordToPath(__firstwordMetaUrl);\n` +
          `const __firstwordMetaDirname = __firstwordToPath(new URL('.', __firstwordMetaUrl));\n`;
        const executor = handsOverExecutor
          ? `import * as __firstwordExecutor from ${JSON.stringify(join(frameworkDirOf(root), 'ipc', 'job_proc_executor.js'))};\n` +
            `globalThis[${BUNDLED_EXECUTOR}] = __firstwordExecutor;\n`
          : '';
        return { contents: prologue + executor + rewritten, loader, resolveDir: dirname(args.path) };
      });
    },
  };
}

function previousOutputs(root) {
  try {
    return JSON.parse(readFileSync(join(root, BUNDLE_STATE), 'utf8')).outputs ?? [];
  } catch {
    return [];
  }
}

/**
 * Bundles src/agent.ts and the process entries into dist/, replacing tsc's dist/agent.js, and
 * removes chunks an earlier bundle left. @returns the files written.
 */
export async function bundleWorker(root) {
  const { build } = await import('esbuild');
  const dist = join(root, 'dist');
  const result = await build({
    entryPoints: Object.entries(entries(root)).map(([out, input]) => ({ in: input, out })),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: dist,
    // The metafile's paths are relative to this, whatever directory the build was started from.
    absWorkingDir: root,
    chunkNames: `${CHUNK_PREFIX}[hash]`,
    allowOverwrite: true,
    conditions: ['firstword-compiled'],
    external: OUTSIDE,
    // CommonJS dependencies inside an ES module bundle still call require().
    banner: { js: "import { createRequire as __firstwordRequire } from 'node:module'; const require = __firstwordRequire(import.meta.url);" },
    plugins: [rewriteMetaPlugin(root)],
    metafile: true,
    // Each output's map beside it names the package or source file of every line: CPU profiles
    // (bench/capacity/profile-summary.ts) and `--enable-source-maps` stack traces read them.
    sourcemap: 'linked',
    sourcesContent: false,
    // Whitespace and syntax only: V8 parses every byte of the bundle in each job process (a tenth of
    // its import), while names stay as written, so stack traces still read without the maps.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
  const written = new Set(Object.keys(result.metafile.outputs).map((file) => join(root, file)));
  // Chunks are named by their content, so those of earlier bundles would pile up. The last
  // bundle's stay one more build: a worker still draining on it may yet load one lazily.
  const keep = new Set([...written, ...previousOutputs(root).map((file) => join(root, file))]);
  for (const name of readdirSync(dist)) {
    if (name.startsWith(CHUNK_PREFIX) && !keep.has(join(dist, name))) rmSync(join(dist, name));
  }
  writeFileSync(join(dist, STATE), `${JSON.stringify({ root, outputs: [...written].map((file) => relative(root, file)).sort() }, null, 2)}\n`);
  return [...written];
}

export const BUNDLE_STATE = join('dist', STATE);

/** The bundle names files by absolute path: one built in another directory must be built again. */
export function bundledHere(root) {
  try {
    return JSON.parse(readFileSync(join(root, BUNDLE_STATE), 'utf8')).root === root;
  } catch {
    return false;
  }
}
