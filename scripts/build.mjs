/**
 * The worker's production build: the TTS plugin (packages/agents-plugin-tts/dist), then the
 * application against it (dist/), then the worker bundled from both (./bundle.mjs: dist/agent.js
 * and the process entries beside it). `npm start` (prestart), PM2 (ecosystem.config.cjs) and systemd
 * (ExecStartPre) run it before every start, so the worker never runs an older build than its
 * source. Plain JavaScript: it runs before anything is compiled.
 *
 * Both builds are incremental, their state (.tsbuildinfo) inside their dist/, so a deleted dist/
 * is rebuilt whole. When no input is newer than that state, tsc is not started at all: even an
 * incremental no-op costs ~10 CPU-seconds here, on every restart.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_STATE, bundledHere, bundleWorker } from './bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Each build: its tsconfig, its state file, and what it is built from (sources, configs, manifests). */
const BUILDS = [
  {
    project: 'packages/agents-plugin-tts/tsconfig.build.json',
    state: 'packages/agents-plugin-tts/dist/.tsbuildinfo',
    inputs: ['packages/agents-plugin-tts/src', 'packages/agents-plugin-tts/tsconfig.json', 'packages/agents-plugin-tts/tsconfig.build.json', 'packages/agents-plugin-tts/package.json', 'package-lock.json'],
  },
  {
    project: 'tsconfig.build.json',
    state: 'dist/.tsbuildinfo',
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'packages/agents-plugin-tts/dist/.tsbuildinfo'],
  },
];

function newestMtimeMs(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  // A directory's own mtime changes when a file in it is added, removed or renamed.
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtimeMs(join(path, name))), stat.mtimeMs);
}

/** The bundle is built from both builds' output, the framework as patched, and its own script. */
const BUNDLE = {
  state: BUNDLE_STATE,
  inputs: ['dist/.tsbuildinfo', 'packages/agents-plugin-tts/dist/.tsbuildinfo', 'patches', 'scripts/bundle.mjs', 'package-lock.json'],
};

function upToDate({ state, inputs }) {
  const statePath = join(root, state);
  if (!existsSync(statePath)) return false;
  const built = statSync(statePath).mtimeMs;
  return inputs.every((input) => newestMtimeMs(join(root, input)) <= built);
}

/**
 * One build at a time in a tree: two at once (a process manager's start beside a manual build,
 * test files beside each other) would write the same outputs, and the bundle removes chunks.
 * The second waits, then finds the tree up to date. The lock names its process: a lock whose
 * process is gone is left over from a killed build.
 */
const LOCK = join(root, 'node_modules', '.cache', 'firstword-build.lock');
function holderAlive() {
  try {
    process.kill(Number(readFileSync(join(LOCK, 'pid'), 'utf8')), 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's. No pid file yet: its holder is writing it.
    if (error?.code === 'EPERM') return true;
    const made = statSync(LOCK, { throwIfNoEntry: false });
    return error?.code === 'ENOENT' && made !== undefined && Date.now() - made.mtimeMs < 5_000;
  }
}
function lock() {
  mkdirSync(dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      process.on('exit', () => rmSync(LOCK, { recursive: true, force: true }));
      return;
    } catch (error) {
      if (error?.code !== 'EEXIST') throw error;
      if (!holderAlive()) rmSync(LOCK, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}
lock();

for (const build of BUILDS) {
  if (upToDate(build)) continue;
  const startedAt = new Date();
  try {
    execFileSync(process.execPath, [tsc, '-p', build.project], { cwd: root, stdio: 'inherit' });
  } catch {
    // tsc records a failed build in its state too: drop it, or the next start would skip tsc.
    rmSync(join(root, build.state), { force: true });
    process.stderr.write(`build failed: tsc -p ${build.project} (its errors above)\n`);
    process.exit(1);
  }
  // tsc leaves its state file alone when nothing it emits changed (a touched source): date it to
  // this build's start, so the next start skips tsc, and a file saved during the build does not.
  utimesSync(join(root, build.state), startedAt, startedAt);
}

if (!upToDate(BUNDLE) || !bundledHere(root)) {
  try {
    await bundleWorker(root);
  } catch (error) {
    rmSync(join(root, BUNDLE.state), { force: true });
    process.stderr.write(`build failed: bundling the worker: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
