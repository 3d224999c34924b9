import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { collectExit, spawnTsx } from './spawn-tsx.js';

type Message = string | { fixture: string; [key: string]: unknown };

const FIXTURE = 'test/lifecycle/fixtures/fake-worker.ts';
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts the fixture worker with an IPC channel, as PM2 does. */
function startWorker(env: Record<string, string> = {}) {
  const child = spawnTsx(FIXTURE, [], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  children.push(child);
  const messages: Message[] = [];
  const waiters: { match: (m: Message) => boolean; resolve: () => void }[] = [];
  child.on('message', (message: Message) => {
    messages.push(message);
    for (const waiter of waiters.filter((w) => w.match(message))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const exited = collectExit(child, 20_000);
  const next = (match: (m: Message) => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      if (messages.some(match)) return resolve();
      const timer = setTimeout(() => reject(new Error(`no ${what} message within 20 s`)), 20_000);
      waiters.push({ match, resolve: () => (clearTimeout(timer), resolve()) });
      void exited.then((result) => reject(new Error(`worker exited before ${what}: ${result.stderr}`)));
    });
  return {
    child,
    messages,
    exited,
    ready: () => next((m) => m === 'ready', "'ready'"),
    draining: () => next((m) => typeof m === 'object' && m.fixture === 'draining', 'draining'),
    events: () => messages.map((m) => (typeof m === 'string' ? m : m.fixture)),
  };
}

// Each case is a real worker process (importing @livekit/agents costs ~1.5 s of CPU), so
// only the two behaviours the issue names run here; the other paths (SIGINT, PM2's
// shutdown message, drain timeout, hung close) are covered in-process in shutdown-unit.
describe('graceful shutdown of the worker process', () => {
  it("sends PM2 'ready' once registered, then exits 0 promptly on SIGTERM with no active job", async () => {
    // the drain timeout (60 s) is far beyond the 20 s the helper allows: waiting for it fails the test
    const worker = startWorker({ SHUTDOWN_DRAIN_TIMEOUT_S: '60', LIVEKIT_URL: 'wss://example.livekit.cloud' });
    await worker.ready();
    // production options as the framework's `start` would build them, URL from the environment
    expect(worker.messages).toContainEqual({
      fixture: 'running',
      production: true,
      port: 8081,
      wsURL: 'wss://example.livekit.cloud',
      loadThreshold: 0.7,
    });

    worker.child.kill('SIGTERM');
    const result = await worker.exited;

    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(worker.events()).toEqual(['running', 'ready', 'draining', 'closed']);
    expect(worker.messages).toContainEqual({ fixture: 'draining', activeJobs: 0, timeoutMs: 60_000 });
  });

  it('waits for an active job to finish before closing, and ignores a second SIGTERM', async () => {
    const worker = startWorker({ FIXTURE_JOB_MS: '1500' });
    await worker.ready();

    worker.child.kill('SIGTERM');
    await worker.draining();
    worker.child.kill('SIGTERM');
    const result = await worker.exited;

    expect(result.code).toBe(0);
    expect(worker.events()).toEqual(['running', 'ready', 'draining', 'job-finished', 'closed']);
  });
});
