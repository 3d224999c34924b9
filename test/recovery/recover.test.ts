import { describe, expect, it } from 'vitest';
import { readDispatchMetadata } from '../../src/recovery/dispatch-metadata.js';
import { HISTORY_ATTRIBUTE, encodeHistory } from '../../src/recovery/history.js';
import type { JobProcessExit } from '../../src/recovery/job-exits.js';
import { type RecoveryApi, type RoomParticipant, planRecovery, recoverFromExit } from '../../src/recovery/recover.js';

const AGENT = 4;
const ROOM = 'call-_+14155550123_abcd';
const history = [
  { role: 'user' as const, text: 'What time does the pharmacy open tomorrow?' },
  { role: 'assistant' as const, text: 'It opens at nine.' },
];
const deadAgent: RoomParticipant = { identity: 'agent-AJ_dead', kind: AGENT, attributes: { [HISTORY_ATTRIBUTE]: encodeHistory(history) } };
const caller: RoomParticipant = { identity: 'sip_+14155550123', kind: 3, attributes: {} };

function exitOf(code: number | null, signal: NodeJS.Signals | null, metadata = ''): JobProcessExit {
  return { info: { job: { id: 'AJ_dead', metadata, room: { name: ROOM } }, acceptArguments: { identity: 'agent-AJ_dead' } }, pid: 4242, code, signal };
}

function fakeApi(participants: RoomParticipant[], fail?: 'list' | 'dispatch'): RecoveryApi & { calls: string[]; metadata?: string } {
  const api = {
    calls: [] as string[],
    metadata: undefined as string | undefined,
    async listParticipants(room: string) {
      api.calls.push(`list ${room}`);
      if (fail === 'list') throw new Error('twirp error: room not found');
      return participants;
    },
    async removeParticipant(room: string, identity: string) {
      api.calls.push(`remove ${identity}`);
    },
    async createDispatch(room: string, agentName: string, options: { metadata: string }) {
      api.calls.push(`dispatch ${agentName}`);
      if (fail === 'dispatch') throw new Error('no such agent');
      api.metadata = options.metadata;
      return { id: 'AD_new' };
    },
  };
  return api;
}

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  return { lines, logger: { error: at('error'), warn: at('warn'), info: at('info') } };
}

describe('deciding what a dead job leaves to do', () => {
  it('resumes when the dead agent and a caller are still in the room', () => {
    expect(planRecovery([deadAgent, caller], 'agent-AJ_dead')).toEqual({ action: 'resume', history });
  });

  it('does nothing when the agent had left the room (its job had ended)', () => {
    expect(planRecovery([caller], 'agent-AJ_dead').action).toBe('none');
  });

  it('only removes the agent when no caller is left (other agents do not count)', () => {
    expect(planRecovery([deadAgent, { identity: 'agent-other', kind: AGENT, attributes: {} }], 'agent-AJ_dead').action).toBe('remove');
  });

  it('resumes without history when the stored history is unreadable', () => {
    const plan = planRecovery([{ ...deadAgent, attributes: { [HISTORY_ATTRIBUTE]: 'nonsense' } }, caller], 'agent-AJ_dead');
    expect(plan).toEqual({ action: 'resume', history: [], historyError: expect.stringMatching(/not JSON/) });
  });
});

describe('a job process exiting', () => {
  it('leaves a normal end alone: no line, no call to the server', async () => {
    const api = fakeApi([deadAgent, caller]);
    const { lines, logger } = recordingLogger();
    expect(await recoverFromExit(exitOf(0, null), api, { agentName: 'fw', logger })).toBeUndefined();
    expect(api.calls).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('killed mid-call: one error line, the dead agent removed, then a resumption dispatched with the history', async () => {
    const api = fakeApi([deadAgent, caller]);
    const { lines, logger } = recordingLogger();
    const outcome = await recoverFromExit(exitOf(null, 'SIGKILL', '{"caller":"web-1"}'), api, { agentName: 'fw', logger });
    expect(outcome).toEqual({ plan: 'resume', dispatchId: 'AD_new' });
    expect(api.calls).toEqual([`list ${ROOM}`, 'remove agent-AJ_dead', 'dispatch fw']);
    expect(readDispatchMetadata(api.metadata)).toEqual({ original: '{"caller":"web-1"}', resume: { resumeOf: 'AJ_dead', why: 'its job process died', original: '{"caller":"web-1"}', history } });
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toEqual({ level: 'error', fields: { room: expect.any(String), job: 'AJ_dead', jobPid: 4242, code: null, signal: 'SIGKILL' }, msg: 'job process died during a call (signal SIGKILL)' });
    expect(lines.map((l) => l.level)).toEqual(['error', 'info']);
    // The room name carries the caller's number; no line does.
    expect(JSON.stringify(lines)).not.toContain('4155550123');
    expect(JSON.stringify(lines)).toContain('0123');
  });

  it('at its call cap, the worker dispatches only once LiveKit has been told it has room again', async () => {
    const api = fakeApi([deadAgent, caller]);
    const { lines, logger } = recordingLogger();
    let told!: (ok: boolean) => void;
    const recovering = recoverFromExit(exitOf(null, 'SIGKILL'), api, { agentName: 'fw', logger, readyToServe: () => new Promise((resolve) => (told = resolve)) });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(api.calls).toEqual([`list ${ROOM}`, 'remove agent-AJ_dead']);
    told(true);
    expect(await recovering).toEqual({ plan: 'resume', dispatchId: 'AD_new' });
    expect(lines.map((l) => l.level)).toEqual(['error', 'info']);
  });

  it('when LiveKit still takes the worker as full after the wait, it dispatches anyway and says so', async () => {
    const api = fakeApi([deadAgent, caller]);
    const { lines, logger } = recordingLogger();
    expect(await recoverFromExit(exitOf(null, 'SIGKILL'), api, { agentName: 'fw', logger, readyToServe: async () => false })).toEqual({ plan: 'resume', dispatchId: 'AD_new' });
    expect(lines.map((l) => l.level)).toEqual(['error', 'warn', 'info']);
  });

  it('a process that died after its agent had left the room ended no call: a warning, nothing else', async () => {
    const api = fakeApi([caller]);
    const { lines, logger } = recordingLogger();
    expect(await recoverFromExit(exitOf(null, 'SIGKILL'), api, { agentName: 'fw', logger })).toEqual({ plan: 'none' });
    expect(api.calls).toEqual([`list ${ROOM}`]);
    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual(['warn job process ended abnormally after its call (signal SIGKILL)']);
  });

  it('no caller left: the dead agent is removed, no new agent', async () => {
    const api = fakeApi([deadAgent]);
    const { lines, logger } = recordingLogger();
    expect(await recoverFromExit(exitOf(null, 'SIGKILL'), api, { agentName: 'fw', logger })).toEqual({ plan: 'remove' });
    expect(api.calls).toEqual([`list ${ROOM}`, 'remove agent-AJ_dead']);
    expect(lines.map((l) => l.level)).toEqual(['error', 'info']);
  });

  it('a crash (non-zero exit) is a death too', async () => {
    const api = fakeApi([deadAgent, caller]);
    const { lines, logger } = recordingLogger();
    await recoverFromExit(exitOf(1, null), api, { agentName: 'fw', logger });
    expect(lines[0]!.msg).toBe('job process died during a call (exit code 1)');
    expect(api.calls).toContain('dispatch fw');
  });

  it('a server that cannot be reached: the error line, one warning, no throw', async () => {
    for (const fail of ['list', 'dispatch'] as const) {
      const api = fakeApi([deadAgent, caller], fail);
      const { lines, logger } = recordingLogger();
      expect(await recoverFromExit(exitOf(null, 'SIGKILL'), api, { agentName: 'fw', logger })).toEqual({ plan: 'failed' });
      expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual(['error job process died during a call (signal SIGKILL)', 'warn could not resume the call']);
    }
  });

  it('unreadable history: a warning, and the call is resumed anyway', async () => {
    const api = fakeApi([{ ...deadAgent, attributes: { [HISTORY_ATTRIBUTE]: '[{"role":1}]' } }, caller]);
    const { lines, logger } = recordingLogger();
    expect((await recoverFromExit(exitOf(null, 'SIGSEGV'), api, { agentName: 'fw', logger }))?.plan).toBe('resume');
    expect(lines.map((l) => l.level)).toEqual(['error', 'warn', 'info']);
    expect(readDispatchMetadata(api.metadata).resume?.history).toEqual([]);
  });
});
