/**
 * The production build bundles the worker (scripts/bundle.mjs). What must hold for it to run as
 * the separate files did: the processes the framework forks load the bundle's entries, never a
 * second copy of the framework from node_modules; files located next to a module's own code are
 * still found; and two builds at once, or one after a killed build, leave a whole tree.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const dist = path.join(root, 'dist');
const build = () => execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'pipe' });
const work = mkdtempSync(path.join(tmpdir(), 'fw-bundle-test-'));

/** Every file a Node process resolves while it imports `entries`. */
function modulesLoaded(entries: string[]): string[] {
  const list = path.join(work, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  const hooks = path.join(work, 'hooks.mjs');
  writeFileSync(hooks, `import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const resolved = await next(specifier, context);\n  appendFileSync(${JSON.stringify(list)}, resolved.url + '\\n');\n  return resolved;\n}\n`);
  const register = path.join(work, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const script = entries.map((entry) => `await import(${JSON.stringify(pathToFileURL(entry).href)});`).join('\n') + '\nprocess.exit(0);';
  execFileSync(process.execPath, ['--conditions=firstword-compiled', '--import', pathToFileURL(register).href, '--input-type=module', '-e', script], { cwd: root, stdio: 'pipe', timeout: 60_000 });
  return [...new Set(readFileSync(list, 'utf8').split('\n').filter((url) => url.startsWith('file:')))].map((url) => fileURLToPath(url));
}

describe('the bundled worker', () => {
  beforeAll(build, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('writes each process entry where the framework and the worker fork or name it', () => {
    const state = JSON.parse(readFileSync(path.join(dist, '.bundle-state'), 'utf8')) as { root: string; outputs: string[] };
    expect(state.root).toBe(root);
    for (const entry of ['agent.js', 'job_proc_lazy_main.js', 'inference_proc_lazy_main.js', 'inference/eot/runner.js', 'smart-turn-runner.js']) {
      expect(state.outputs).toContain(path.join('dist', entry));
      expect(existsSync(path.join(dist, entry)), entry).toBe(true);
    }
    // The framework's job executor forks ./job_proc_lazy_main.js beside its own code: a chunk at dist/'s top level.
    const executorChunk = state.outputs.find((file) => readFileSync(path.join(root, file), 'utf8').includes('./job_proc_lazy_main'));
    expect(executorChunk && path.dirname(executorChunk)).toBe('dist');
  });

  it('loads one copy of the framework and the plugins, and far fewer files than module by module', () => {
    const loaded = modulesLoaded([path.join(dist, 'agent.js'), path.join(dist, 'smart-turn-runner.js'), path.join(dist, 'inference', 'eot', 'runner.js')]);
    const fromNodeModules = (pkg: string) => loaded.filter((file) => file.includes(`${path.sep}node_modules${path.sep}${pkg}${path.sep}`));
    expect(fromNodeModules('@livekit/agents')).toEqual([]);
    expect(fromNodeModules('@livekit/agents-plugin-openai')).toEqual([]);
    expect(fromNodeModules('@livekit/agents-plugin-silero')).toEqual([]);
    expect(fromNodeModules('openai')).toEqual([]);
    expect(fromNodeModules('zod')).toEqual([]);
    // Module by module, importing the agent resolves ~870 files.
    expect(loaded.length).toBeLessThan(200);
  });

  it('finds the files that modules locate beside their own code', () => {
    const outputs = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js'));
    const located = outputs.flatMap((file) => [...readFileSync(path.join(dist, file), 'utf8').matchAll(/\b__firstwordMetaUrl\d*\s*=\s*"(file:[^"]+)"/g)].map((m) => m[1]!));
    // Among them the Silero model's module, the Smart Turn model's, the eSpeak synthesizer's worker.
    expect(located.length).toBeGreaterThan(5);
    for (const url of located) expect(existsSync(fileURLToPath(url)), url).toBe(true);
  });

  it('bundles again a tree that was bundled in another directory, whatever directory the build starts in', () => {
    const statePath = path.join(dist, '.bundle-state');
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as { root: string; outputs: string[] };
    writeFileSync(statePath, JSON.stringify({ ...state, root: '/elsewhere' }));
    execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: work, stdio: 'pipe' });
    const rebuilt = JSON.parse(readFileSync(statePath, 'utf8')) as { root: string; outputs: string[] };
    expect(rebuilt.root).toBe(root);
    expect(rebuilt.outputs).toEqual(state.outputs);
    for (const file of rebuilt.outputs) expect(existsSync(path.join(root, file)), file).toBe(true);
  }, 120_000);

  it('waits for a build under way, and takes over the lock of a build that was killed', async () => {
    const lock = path.join(root, 'node_modules', '.cache', 'firstword-build.lock');
    mkdirSync(lock, { recursive: true });
    // A holder that is alive: the build waits until the lock is gone.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    writeFileSync(path.join(lock, 'pid'), String(holder.pid));
    const waiting = spawn(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => waiting.once('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(waiting.exitCode).toBeNull();
    // The holder dies without removing its lock.
    holder.kill('SIGKILL');
    expect(await exited).toBe(0);
    expect(existsSync(lock)).toBe(false);
  }, 60_000);
});
