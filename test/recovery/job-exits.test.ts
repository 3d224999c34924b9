/**
 * The one place the worker reaches into @livekit/agents' internals (src/recovery/job-exits.ts):
 * this forks a real job process through the framework's own executor, gives it a job and kills
 * it, and fails if the executor moved, lost `launchJob` or `proc`, or stopped reporting the exit.
 */
import { fileURLToPath } from 'node:url';
import { initializeLogger } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { type JobInfo, type JobProcessExit, classifyExit, jobExecutorModuleUrl, watchJobProcessExits } from '../../src/recovery/job-exits.js';

const AGENT = fileURLToPath(new URL('./fixtures/waiting-agent.mjs', import.meta.url));

interface Executor {
  proc?: { pid?: number };
  start(): Promise<void>;
  initialize(options: { sessionEndTimeout: number }): Promise<void>;
  launchJob(info: JobInfo): Promise<void>;
  join(): Promise<void>;
  close(): Promise<void>;
}

describe('how a job process ended', () => {
  it('a signal or a non-zero code is a death; exit code 0 is the job ending itself', () => {
    expect(classifyExit(null, 'SIGKILL')).toEqual({ unexpected: true, how: 'signal SIGKILL' });
    expect(classifyExit(1, null)).toEqual({ unexpected: true, how: 'exit code 1' });
    expect(classifyExit(0, null)).toEqual({ unexpected: false, how: 'exit code 0' });
  });
});

describe('watching the framework\'s job processes', () => {
  it('reports the job and the signal when a job process is killed while running a job', async () => {
    initializeLogger({ pretty: false, level: 'fatal' });
    const { JobProcExecutor } = (await import(jobExecutorModuleUrl())) as { JobProcExecutor: new (options: Record<string, unknown>) => Executor };
    const exits: JobProcessExit[] = [];
    const stop = await watchJobProcessExits((exit) => exits.push(exit));
    const executor = new JobProcExecutor({
      agent: AGENT,
      initializeTimeout: 30_000,
      closeTimeout: 5000,
      memoryWarnMB: 0,
      memoryLimitMB: 0,
      pingInterval: 2500,
      pingTimeout: 60_000,
      highPingThreshold: 500,
    });
    try {
      await executor.start();
      await executor.initialize({ sessionEndTimeout: 10_000 });
      const info = {
        job: { id: 'AJ_shape', metadata: '{"caller":"c"}', room: { name: 'shape-room', sid: 'RM_shape' }, type: 0, agentName: 'fw' },
        acceptArguments: { identity: 'agent-AJ_shape', name: '', metadata: '', attributes: {} },
        url: 'ws://127.0.0.1:9',
        token: 'unused',
        workerId: 'W_shape',
      };
      await executor.launchJob(info);
      const pid = executor.proc?.pid;
      expect(pid).toBeTypeOf('number');
      process.kill(pid!, 'SIGKILL');
      await executor.join();
      expect(exits).toEqual([{ info, pid, code: null, signal: 'SIGKILL' }]);
    } finally {
      stop();
      await executor.close();
    }
  }, 60_000);
});
