/**
 * One step of `npm run bench:capacity` against one worker: the callers (./driver.ts) run inside the
 * stack's namespace while the worker's CPU and memory are read from /proc. The steady window runs
 * from the driver's `ready` (every call live) to its `done` (turns over, before any caller leaves).
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { running } from '../../scripts/stack/processes.js';
import type { StackState } from '../../scripts/stack/state.js';
import { type DriverEvent, runDriver } from '../room/stack-run.js';
import type { CapacityPlan } from './driver.js';
import { type GroupMemory, groupCpuMs, groupMemory, machineCpu, machineLoad, threadCpu } from './proc.js';
import type { CpuSampler } from './sampler.js';
import type { ProcessReading, StepRaw } from './summary.js';
import { capacityTransitions, processMarksOf } from './worker-log.js';

/** A worker under test: its main process (leader of its process group) and its log. */
export interface Target {
  name: 'firstword' | 'stock';
  agentName: string;
  pid: number;
  logFile: string;
  idle: GroupMemory;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The framework's idle job processes in production (agents-js worker.ts `Default.numIdleProcesses`:
 * min(cores, 4)); neither worker sets its own.
 */
export const SPARES = Math.min(availableParallelism(), 4);

/**
 * Waits (bounded) until the worker is at rest: every job process that held a call has exited, and
 * its SPARES idle job processes have finished their prewarm (logged "job process ready"), so no
 * call's end and no spare's start-up spills into the next step.
 */
export async function settle(target: Target, sampler: CpuSampler, timeoutMs = 120_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(500)) {
    const marks = processMarksOf(target.logFile);
    const jobs = [...sampler.sample(target.pid).keys()].filter((pid) => sampler.role(pid) === 'job' && running(pid));
    const busy = jobs.some((pid) => marks.get(pid)?.sessionAt !== undefined);
    const booting = jobs.some((pid) => marks.get(pid)?.readyAt === undefined);
    if (jobs.length >= SPARES && !busy && !booting) return true;
  }
  return false;
}

/** The worker's live members by role (main, job, inference, other). */
export function rolesNow(target: Target, sampler: CpuSampler): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const pid of sampler.sample(target.pid).keys()) {
    if (!running(pid)) continue;
    const role = sampler.role(pid);
    counts[role] = (counts[role] ?? 0) + 1;
  }
  return counts;
}

/**
 * Waits (bounded) until the worker's last status flip says available. livekit-server drops a room
 * job that finds every worker full (no retry once the worker frees up), so a step or the probe
 * that starts while the last step's "full" still stands would measure a dropped dispatch.
 */
export async function available(logFile: string, timeoutMs = 60_000): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(250)) {
    const last = capacityTransitions(logFile).at(-1);
    if (!last?.full) {
      // The flip is logged as the update goes out; give the server a moment to apply it.
      await sleep(500);
      return true;
    }
  }
  return false;
}

/** Every member's CPU now, and the threads of its job processes (a call's process is one of them). */
function reading(sampler: CpuSampler, leader: number): ProcessReading {
  const cpu = sampler.sample(leader);
  const threads = new Map<number, ReturnType<typeof threadCpu>>();
  for (const pid of cpu.keys()) if (sampler.role(pid) === 'job') threads.set(pid, threadCpu(pid));
  return { at: Date.now(), cpu, threads };
}

export interface StepIo {
  state: StackState;
  sampler: CpuSampler;
  work: string;
  note: (line: string) => void;
}

export async function runStep(io: StepIo, target: Target, plan: CapacityPlan): Promise<StepRaw> {
  const { state, sampler, work, note } = io;
  const pid = target.pid;
  const planFile = join(work, `plan-${target.name}-${plan.mode}-${plan.calls}.json`);
  writeFileSync(planFile, `${JSON.stringify(plan)}\n`);
  // The worker at rest just before the step (./step.ts settle): what the step's memory is measured against.
  const idle = groupMemory(pid);
  const raw: StepRaw = {
    idle,
    calls: plan.calls,
    joins: [],
    turns: [],
    windowMs: 0,
    workerCpuMs: 0,
    machineLoad: Number.NaN,
    memoryPeak: idle,
    startedAt: Date.now(),
  };
  let cpu0 = 0;
  let t0 = 0;
  let m0 = machineCpu();
  let memory: NodeJS.Timeout | undefined;
  const sample = () => {
    const m = groupMemory(pid);
    if (m.pssMb > raw.memoryPeak.pssMb) raw.memoryPeak = m;
  };
  const endWindow = () => {
    if (!t0 || raw.windowMs) return;
    clearInterval(memory);
    raw.steadyEnd = reading(sampler, pid);
    raw.workerCpuMs = groupCpuMs(pid) - cpu0;
    raw.windowMs = Date.now() - t0;
    raw.machineLoad = machineLoad(m0, machineCpu());
  };
  const events: DriverEvent[] = [];
  const onEvent = (event: DriverEvent) => {
    events.push(event);
    if (event.bench === 'joined') raw.joins.push(event as unknown as StepRaw['joins'][number]);
    else if (event.bench === 'ready') {
      note(`${target.name}, ${plan.calls} call(s): ${String(event.joined)} joined, ${String(event.failed)} not served; turns running`);
      raw.steadyStart = reading(sampler, pid);
      cpu0 = groupCpuMs(pid);
      m0 = machineCpu();
      t0 = Date.now();
      sample();
      memory = setInterval(sample, 1000);
    } else if (event.bench === 'turn') {
      const t = event as unknown as StepRaw['turns'][number];
      raw.turns.push(t);
      note(`  ${target.name} call ${t.call} turn ${t.turn}: ${t.ok ? `first sound ${Math.round(t.callerWaitMs ?? 0)} ms, ${t.gaps ?? 0} gaps` : `MISS ${t.error}`}`);
    } else if (event.bench === 'done') {
      endWindow();
      raw.callerCpuShare = event.callerCpuShare as number;
    } else if (event.bench === 'error') raw.error = String(event.error);
  };
  const code = await runDriver(state, planFile, plan.deadlineMs + 30_000, onEvent, note, join('bench', 'capacity', 'driver.ts'));
  endWindow();
  clearInterval(memory);
  if (code !== 0 && !raw.error) raw.error = `driver exited ${code}`;
  writeFileSync(join(work, `events-${target.name}-${plan.mode}-${plan.calls}.json`), `${JSON.stringify(events)}\n`);
  return raw;
}
