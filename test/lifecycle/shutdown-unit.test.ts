import { EventEmitter } from 'node:events';
import { initializeLogger } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';

const readLifecycleEnv = (env: Record<string, string>) => loadConfig(env, { mode: 'demo' }).lifecycle;
import { signalReadyOnRegistration } from '../../src/lifecycle/ready.js';
import { WorkerError } from '@livekit/agents';
import { drainableServer } from '../../src/lifecycle/run-worker.js';
import { EXIT_CUT_SHORT, EXIT_FORCED, type Drainable, installGracefulShutdown } from '../../src/lifecycle/shutdown.js';

initializeLogger({ pretty: false, level: 'silent' });

/** A worker whose drain and close settle when the test says so. */
function controllableWorker() {
  let finishDrain!: () => void;
  let failDrain!: (error: Error) => void;
  const calls: string[] = [];
  const worker: Drainable & { activeJobCount: number } = {
    activeJobCount: 1,
    drain: (timeoutMs) => {
      calls.push(`drain(${timeoutMs})`);
      return new Promise<void>((resolve, reject) => {
        finishDrain = resolve;
        failDrain = reject;
      });
    },
    close: async () => {
      calls.push('close');
    },
  };
  return { worker, calls, finishDrain: () => finishDrain(), failDrain: (e: Error) => failDrain(e) };
}

function install(worker: Drainable, extra: Parameters<typeof installGracefulShutdown>[1] = {}) {
  const target = new EventEmitter();
  const exits: number[] = [];
  const handle = installGracefulShutdown(worker, {
    target: target as unknown as NodeJS.Process,
    exit: (code) => exits.push(code),
    ...extra,
  });
  return { target, exits, handle };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('installGracefulShutdown', () => {
  it('closes only after the drain resolves, then exits 0', async () => {
    const { worker, calls, finishDrain } = controllableWorker();
    const { target, exits, handle } = install(worker, { drainTimeoutMs: 5000 });

    target.emit('SIGTERM');
    await flush();
    expect(calls).toEqual(['drain(5000)']);
    expect(exits).toEqual([]);

    finishDrain();
    await flush();
    await flush();
    expect(calls).toEqual(['drain(5000)', 'close']);
    expect(exits).toEqual([0]);
    handle.dispose();
  });

  it('drains on SIGINT as on SIGTERM (PM2 sends SIGINT by default)', async () => {
    const { worker, calls, finishDrain } = controllableWorker();
    const { target, exits, handle } = install(worker);

    target.emit('SIGINT');
    await flush();
    expect(calls).toHaveLength(1);
    expect(exits).toEqual([]);
    finishDrain();
    await flush();
    await flush();
    expect(exits).toEqual([0]);
    handle.dispose();
  });

  it("treats PM2's 'shutdown' message like SIGTERM and ignores other messages", async () => {
    const { worker, calls, finishDrain } = controllableWorker();
    const { target, exits, handle } = install(worker);

    target.emit('message', { some: 'other message' });
    await flush();
    expect(calls).toEqual([]);

    target.emit('message', 'shutdown');
    await flush();
    expect(calls).toHaveLength(1);
    finishDrain();
    await flush();
    await flush();
    expect(exits).toEqual([0]);
    handle.dispose();
  });

  it('forces exit 130 on a second SIGINT but only logs a second SIGTERM', async () => {
    const first = controllableWorker();
    const sigterm = install(first.worker);
    sigterm.target.emit('SIGTERM');
    sigterm.target.emit('SIGTERM');
    await flush();
    expect(sigterm.exits).toEqual([]);
    expect(first.calls).toHaveLength(1);
    sigterm.handle.dispose();

    const second = controllableWorker();
    const sigint = install(second.worker);
    sigint.target.emit('SIGINT');
    sigint.target.emit('SIGINT');
    await flush();
    expect(sigint.exits).toEqual([EXIT_FORCED]);
    sigint.handle.dispose();
  });

  it('exits 1 when the drain fails, still closing the worker', async () => {
    const { worker, calls, failDrain } = controllableWorker();
    const { handle } = install(worker);

    const code = handle.shutdown('test');
    await flush();
    failDrain(new Error('timed out draining'));

    await expect(code).resolves.toBe(EXIT_CUT_SHORT);
    expect(calls).toEqual([expect.stringMatching(/^drain/), 'close']);
    handle.dispose();
  });

  it('exits 1 when close hangs past its bound after calls were cut', async () => {
    const worker: Drainable = {
      activeJobCount: 1,
      drain: async () => {
        throw new Error('timed out draining');
      },
      close: () => new Promise<void>(() => {}),
    };
    const { handle, exits } = install(worker, { closeTimeoutMs: 50 });

    await expect(handle.shutdown('test')).resolves.toBe(EXIT_CUT_SHORT);
    expect(exits).toEqual([EXIT_CUT_SHORT]);
    handle.dispose();
  });

  it('still exits 0 when only idle processes hold up close after a clean drain', async () => {
    const worker: Drainable = {
      activeJobCount: 0,
      drain: async () => {},
      close: () => new Promise<void>(() => {}),
    };
    const { handle, exits } = install(worker, { idleCloseTimeoutMs: 50, closeTimeoutMs: 60_000 });

    await expect(handle.shutdown('test')).resolves.toBe(0);
    expect(exits).toEqual([0]);
    handle.dispose();
  });

  it('removes its listeners on dispose', () => {
    const { worker } = controllableWorker();
    const { target, handle } = install(worker);
    expect(target.listenerCount('SIGTERM')).toBe(1);
    handle.dispose();
    expect(target.listenerCount('SIGTERM')).toBe(0);
    expect(target.listenerCount('message')).toBe(0);
  });
});

describe('drainableServer', () => {
  function fakeServer(jobs: string[]) {
    return {
      event: new EventEmitter(),
      activeJobs: jobs,
      run: async () => {},
      // like AgentServer.drain while an idle process is still starting: never settles
      drain: () => new Promise<void>(() => {}),
      close: async () => {},
    };
  }

  it('finishes the drain as soon as no job is running, without waiting for idle processes', async () => {
    const server = fakeServer(['job-1']);
    const drainable = drainableServer(server, 10);
    let done = false;
    const drained = drainable.drain(60_000).then(() => (done = true));

    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    server.activeJobs.length = 0;
    await drained;
    expect(done).toBe(true);
  });

  it("passes on the server's drain timeout while a job is still running", async () => {
    const server = { ...fakeServer(['job-1']), drain: () => Promise.reject(new WorkerError('timed out draining')) };
    await expect(drainableServer(server, 10).drain(1)).rejects.toThrow('timed out draining');
  });

  it('keeps waiting for a running call when drain() fails at once because a job process has not started', async () => {
    // AgentServer.drain() during a job process's start-up: it stops taking jobs, then rejects.
    const server = { ...fakeServer(['job-1']), drain: () => Promise.reject(new Error('runner not started')) };
    const drainable = drainableServer(server, 10);
    let outcome = 'pending';
    const drained = drainable.drain(60_000).then(
      () => (outcome = 'drained'),
      () => (outcome = 'failed'),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(outcome).toBe('pending');
    server.activeJobs.length = 0;
    await drained;
    expect(outcome).toBe('drained');
  });
});

describe('signalReadyOnRegistration', () => {
  it("sends 'ready' once, on the first registration only", () => {
    const events = new EventEmitter();
    const sent: string[] = [];
    signalReadyOnRegistration(events, (message) => sent.push(message));

    expect(sent).toEqual([]);
    events.emit('worker_registered', 'AW_1', {});
    events.emit('worker_registered', 'AW_1', {});
    expect(sent).toEqual(['ready']);
  });
});

describe('SHUTDOWN_DRAIN_TIMEOUT_S', () => {
  it('defaults the drain timeout to 30 minutes and reads SHUTDOWN_DRAIN_TIMEOUT_S', () => {
    expect(readLifecycleEnv({})).toEqual({ drainTimeoutMs: 1_800_000 });
    expect(readLifecycleEnv({ SHUTDOWN_DRAIN_TIMEOUT_S: '90' })).toEqual({ drainTimeoutMs: 90_000 });
  });

  it('rejects a non-positive or fractional timeout by name', () => {
    expect(() => readLifecycleEnv({ SHUTDOWN_DRAIN_TIMEOUT_S: '0' })).toThrow(/SHUTDOWN_DRAIN_TIMEOUT_S/);
    expect(() => readLifecycleEnv({ SHUTDOWN_DRAIN_TIMEOUT_S: '1.5' })).toThrow(/SHUTDOWN_DRAIN_TIMEOUT_S/);
  });
});
