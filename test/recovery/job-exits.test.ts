/**
 * The one place the worker reaches into @livekit/agents' internals (src/recovery/job-exits.ts):
 * this forks a real job process through the framework's own executor, gives it a job and kills
 * it, and fails if the executor moved, lost `launchJob` or `proc`, or stopped reporting the exit.
 */
import { fileURLToPath } from 'node:url';
import { initializeLogger } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { HAND_OVER_READY, HAND_OVER_REQUEST } from '../../src/recovery/hand-over-channel.js';
import { type HandOverRequest, type JobInfo, type JobProcessExit, classifyExit, jobExecutorModuleUrl, watchHandOverRequests, watchJobProcessExits } from '../../src/recovery/job-exits.js';

const AGENT = fileURLToPath(new URL('./fixtures/waiting-agent.mjs', import.meta.url));
const HANDING_OVER_AGENT = fileURLToPath(new URL('./fixtures/handing-over-agent.mjs', import.meta.url));

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
  async function launched(agent: string, jobId: string) {
    initializeLogger({ pretty: false, level: 'fatal' });
    const { JobProcExecutor } = (await import(jobExecutorModuleUrl())) as { JobProcExecutor: new (options: Record<string, unknown>) => Executor };
    const executor = new JobProcExecutor({
      agent,
      initializeTimeout: 30_000,
      closeTimeout: 5000,
      memoryWarnMB: 0,
      memoryLimitMB: 0,
      pingInterval: 2500,
      pingTimeout: 60_000,
      highPingThreshold: 500,
    });
    await executor.start();
    await executor.initialize({ sessionEndTimeout: 10_000 });
    const info = {
      job: { id: jobId, metadata: '{"caller":"c"}', room: { name: 'shape-room', sid: 'RM_shape' }, type: 0, agentName: 'fw' },
      acceptArguments: { identity: `agent-${jobId}`, name: '', metadata: '', attributes: {} },
      url: 'ws://127.0.0.1:9',
      token: 'unused',
      workerId: 'W_shape',
    };
    return { executor, info };
  }

  it('reports the job and the signal when a job process is killed while running a job', async () => {
    const exits: JobProcessExit[] = [];
    const stop = await watchJobProcessExits((exit) => exits.push(exit));
    const { executor, info } = await launched(AGENT, 'AJ_shape');
    try {
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

  it('carries a job\'s request for room for its successor to the main process, and the answer back', async () => {
    expect([HAND_OVER_REQUEST, HAND_OVER_READY]).toEqual(['firstwordHandOverRequest', 'firstwordHandOverReady']); // the fixture's names
    const requests: HandOverRequest[] = [];
    const exits: JobProcessExit[] = [];
    const stopRequests = await watchHandOverRequests((request) => {
      requests.push(request);
      request.ready();
    });
    const stopExits = await watchJobProcessExits((exit) => exits.push(exit));
    const { executor, info } = await launched(HANDING_OVER_AGENT, 'AJ_handover');
    try {
      await executor.launchJob(info);
      await executor.join();
      expect(requests.map((r) => r.jobId)).toEqual(['AJ_handover']);
      // The fixture exits with 42 only once the answer reached it.
      expect(exits.map((e) => e.code)).toEqual([42]);
    } finally {
      stopRequests();
      stopExits();
      await executor.close();
    }
  }, 60_000);
});
