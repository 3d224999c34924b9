/**
 * The faults a call soak injects, one of each kind, while its calls go on: each returns what it
 * did, when the faulted part was back, and which calls it hit (scripts/soak/report.ts judges
 * their turns by that). The same stack operations as the fault drills (scripts/faults).
 */
import { type RestartableComponent, killNode, restartComponent, startExtraWorker } from '../stack/stack.js';
import type { StackState } from '../stack/state.js';
import { roomNodes } from '../stack/cluster.js';
import { logLines } from '../faults/drill.js';
import { running } from '../stack/processes.js';
import { RESUMING_CALL } from '../../src/recovery/dispatch-metadata.js';
import type { SoakFault } from './report.js';

export const SOAK_FAULTS = ['tts', 'job', 'redis', 'livekit', 'restart', 'node'] as const;
export type SoakFaultKind = (typeof SOAK_FAULTS)[number];

/** How long after a fault its calls still count as faulted (recovery: reconnection, a resumed job). */
export const RECOVERY_WINDOW_MS = 60_000;
/** How long the TTS provider stays unreachable. */
export const TTS_OUTAGE_MS = 10_000;

export interface LiveCall {
  name: string;
  room: string;
  /** The agent serving it (its identity is `agent-<job id>`). */
  agent: string;
}

export interface SoakWorker {
  name: string;
  pid: number;
  logFile: string;
}

export interface FaultContext {
  state: StackState;
  agentName: string;
  maxCalls: number;
  worker: SoakWorker;
  liveCalls(): LiveCall[];
  note(line: string): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function registeredAgain(logFile: string, before: number, ms: number): Promise<number | undefined> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(250)) {
    const line = logLines(logFile).filter((l) => l.msg === 'registered worker')[before];
    if (line) return line.time;
  }
  return undefined;
}

async function restart(ctx: FaultContext, kind: SoakFaultKind, component: RestartableComponent, downMs = 0): Promise<SoakFault> {
  const calls = ctx.liveCalls().map((c) => c.name);
  const registrations = logLines(ctx.worker.logFile).filter((l) => l.msg === 'registered worker').length;
  const { goneAt, readyAt } = await restartComponent(ctx.state, component, 'SIGKILL', downMs);
  const figures: SoakFault['figures'] = { downMs: readyAt - goneAt };
  if (component === 'livekit-server') {
    const again = await registeredAgain(ctx.worker.logFile, registrations, 60_000);
    figures.workerRegisteredAgainAfterMs = again === undefined ? null : again - readyAt;
  }
  const action = component === 'cartesia' ? `the TTS provider's server killed, started again ${(downMs / 1000).toFixed(0)} s later` : `${component} SIGKILLed and started again`;
  return { kind, action, startedAt: goneAt, endedAt: readyAt, windowEndsAt: readyAt + RECOVERY_WINDOW_MS, calls, figures };
}

/** One live call's job process SIGKILLed; the worker takes the dead agent out and resumes the call. */
async function killJob(ctx: FaultContext): Promise<SoakFault> {
  const call = ctx.liveCalls()[0];
  if (!call) throw new Error('no live call to kill the job of');
  const job = call.agent.replace(/^agent-/, '');
  const pid = logLines(ctx.worker.logFile).find((l) => l.msg === 'caller joined' && l.job === job)?.pid;
  if (pid === undefined) throw new Error(`no job process found for ${call.name} (agent ${call.agent})`);
  const killedAt = Date.now();
  process.kill(pid, 'SIGKILL');
  let resumedAt: number | undefined;
  for (const deadline = killedAt + 30_000; Date.now() < deadline && resumedAt === undefined; await sleep(250)) {
    resumedAt = logLines(ctx.worker.logFile).find((l) => l.time >= killedAt && l.msg === RESUMING_CALL)?.time;
  }
  return {
    kind: 'job',
    action: `the job process of ${call.name} SIGKILLed`,
    startedAt: killedAt,
    endedAt: resumedAt ?? killedAt,
    windowEndsAt: killedAt + RECOVERY_WINDOW_MS,
    calls: [call.name],
    figures: { jobPid: pid, jobProcessGone: !running(pid), resumedAfterMs: resumedAt === undefined ? null : resumedAt - killedAt },
  };
}

/** What a process manager does on a restart: SIGTERM (the worker drains its calls), and a new worker. */
async function restartWorker(ctx: FaultContext): Promise<SoakFault> {
  const calls = ctx.liveCalls().map((c) => c.name);
  const termAt = Date.now();
  process.kill(ctx.worker.pid, 'SIGTERM');
  const started = await startExtraWorker(ctx.state, {
    name: 'worker-restarted',
    agentName: ctx.agentName,
    httpPort: 18096,
    env: { AGENT_PROCESS_START_TIMEOUT_S: '60', AGENT_MAX_CALLS: String(ctx.maxCalls), TTS_FALLBACK: 'local' },
  });
  const readyAt = Date.now();
  ctx.worker = { name: 'worker-restarted', pid: started.record.pid, logFile: started.record.logFile };
  return {
    kind: 'restart',
    action: 'the worker sent SIGTERM (it drains its calls) and a new worker started',
    startedAt: termAt,
    endedAt: readyAt,
    windowEndsAt: readyAt + RECOVERY_WINDOW_MS,
    calls,
    figures: { newWorkerReadyMs: readyAt - termAt },
  };
}

/** The last node of a cluster SIGKILLed for good: the calls it hosted are hit for the rest of their life. */
async function killLastNode(ctx: FaultContext): Promise<SoakFault> {
  const nodes = ctx.state.livekit.nodes ?? [];
  const index = Math.max(...nodes.map((n) => n.index));
  if (nodes.length < 2) throw new Error('a node fault needs a cluster: run the soak with --nodes 2');
  const where = await roomNodes(ctx.state);
  const hosted = ctx.liveCalls().filter((c) => where.get(c.room) === index).map((c) => c.name);
  const killedAt = await killNode(ctx.state, index);
  return {
    kind: 'node',
    action: `livekit-server node ${index} SIGKILLed and not started again`,
    startedAt: killedAt,
    endedAt: killedAt,
    windowEndsAt: Number.POSITIVE_INFINITY,
    calls: hosted,
    figures: { node: index, callsOnIt: hosted.length, callsElsewhere: ctx.liveCalls().length - hosted.length },
  };
}

export function injectFault(ctx: FaultContext, kind: SoakFaultKind): Promise<SoakFault> {
  switch (kind) {
    case 'tts':
      return restart(ctx, kind, 'cartesia', TTS_OUTAGE_MS);
    case 'job':
      return killJob(ctx);
    case 'redis':
      return restart(ctx, kind, 'redis');
    case 'livekit':
      return restart(ctx, kind, 'livekit-server');
    case 'restart':
      return restartWorker(ctx);
    case 'node':
      return killLastNode(ctx);
  }
}
