/**
 * PM2, systemd and Docker stop the worker with the same settings: SIGTERM, and a kill timeout of
 * the worker's drain limit plus room for its job processes to close. A process manager that kills
 * sooner hangs up on callers; one that sends another signal skips the drain. The docs name the
 * PM2 version that CI installs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRAIN_TIMEOUT_S } from '../../src/config/defaults.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
/** Job processes get 60 s to exit after a drain that timed out; the worker waits 75 s for that (src/lifecycle/shutdown.ts). */
const CLOSE_ALLOWANCE_S = 90;
const expectedStopS = DEFAULT_DRAIN_TIMEOUT_S + CLOSE_ALLOWANCE_S;

interface Ecosystem {
  apps: { kill_timeout: number; wait_ready: boolean; treekill: boolean; interpreter: string; script: string; args: string[] }[];
}

function loadEcosystem(drainSeconds?: string): Ecosystem {
  const file = path.join(root, 'ecosystem.config.cjs');
  const require = createRequire(import.meta.url);
  const before = process.env.SHUTDOWN_DRAIN_TIMEOUT_S;
  if (drainSeconds === undefined) delete process.env.SHUTDOWN_DRAIN_TIMEOUT_S;
  else process.env.SHUTDOWN_DRAIN_TIMEOUT_S = drainSeconds;
  try {
    delete require.cache[require.resolve(file)];
    return require(file) as Ecosystem;
  } finally {
    if (before === undefined) delete process.env.SHUTDOWN_DRAIN_TIMEOUT_S;
    else process.env.SHUTDOWN_DRAIN_TIMEOUT_S = before;
  }
}

describe('stop settings of every process manager', () => {
  // Loading ecosystem.config.cjs builds the worker (scripts/build.mjs): build once up front, so
  // every load below is the no-op of an up-to-date tree.
  beforeAll(() => {
    execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  }, 180_000);

  it('PM2: waits the drain plus the close allowance, follows SHUTDOWN_DRAIN_TIMEOUT_S, and is online only when ready', () => {
    const [app] = loadEcosystem().apps;
    expect(app!.kill_timeout).toBe(expectedStopS * 1000);
    expect(loadEcosystem('60').apps[0]!.kill_timeout).toBe((60 + CLOSE_ALLOWANCE_S) * 1000);
    expect(app!.wait_ready).toBe(true);
    // Started as node itself, so PM2's signal and IPC reach the worker.
    expect(app!.interpreter).toBe('none');
    expect(app!.args).toContain('start');
  });

  it('systemd: SIGTERM to the main process, the same stop timeout', () => {
    const unit = read('deploy/firstword.service');
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).toMatch(/^KillMode=mixed$/m);
    expect(unit).toMatch(new RegExp(`^TimeoutStopSec=${expectedStopS}$`, 'm'));
  });

  it('Docker: SIGTERM, and the stop timeout the Dockerfile and the docs tell people to pass', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^STOPSIGNAL SIGTERM$/m);
    const docs = read('docs/operations.md');
    for (const text of [dockerfile, docs]) {
      const timeouts = [...text.matchAll(/--stop-timeout (\d+)/g)].map((m) => Number(m[1]));
      expect(timeouts.length).toBeGreaterThan(0);
      expect(new Set(timeouts)).toEqual(new Set([expectedStopS]));
    }
    expect(docs).toContain(`stop_grace_period: ${expectedStopS}s`);
    expect(docs).toContain(`terminationGracePeriodSeconds: ${expectedStopS}`);
  });

  it('npm start, PM2, systemd and Docker run one command: the compiled worker, built before it starts', () => {
    const command = ['node', '--max-semi-space-size=2', '--conditions=firstword-compiled', 'dist/agent.js', 'start'];
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toBe(command.join(' '));
    expect(scripts.prestart).toBe('npm run build');
    expect(scripts.build).toBe('node scripts/build.mjs');
    // Loading the process file builds (up to date here: a no-op), as `npm start` does.
    const [app] = loadEcosystem().apps;
    expect([app!.script, ...app!.args]).toEqual(command);
    const unit = read('deploy/firstword.service');
    expect(unit).toMatch(/^ExecStartPre=\/usr\/bin\/node scripts\/build\.mjs$/m);
    expect(unit).toMatch(new RegExp(`^ExecStart=/usr/bin/${command.join(' ')}$`, 'm'));
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toContain(`CMD ${JSON.stringify(command).replace(/,/g, ', ')}`);
    // Nothing in production loads TypeScript at run time.
    for (const text of [scripts.start, app!.args.join(' '), unit, dockerfile]) expect(text).not.toMatch(/tsx|src\/agent\.ts/);
  });

  it('Docker: both stages on one Node release line, one that package.json accepts', () => {
    const majors = [...read('Dockerfile').matchAll(/^FROM node:(\d+)-/gm)].map((m) => Number(m[1]));
    expect(majors).toHaveLength(2);
    expect(new Set(majors).size).toBe(1);
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const minimumMajor = Number(/>=\s*(\d+)/.exec(engines)?.[1]);
    expect(majors[0]).toBeGreaterThanOrEqual(minimumMajor);
  });

  it('docs/operations.md installs the PM2 version CI tests with', () => {
    const pinned = /^PM2_VERSION=(\S+)$/m.exec(read('scripts/ensure-pm2.sh'))?.[1];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(read('docs/operations.md')).toContain(`npm install -g pm2@${pinned}`);
  });
});
