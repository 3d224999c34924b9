/**
 * One step of `npm run bench:capacity` in figures, and whether it degraded against the 1-call
 * step of the same run (the baseline).
 */
import { mean, percentile } from '../playout.js';
import type { TurnResult } from '../room/turn.js';
import { type CallCost, type ProcessMarks, type Series, type ThreadShare, meanOf, startupCost, threadShares, windowCpu } from './cost.js';
import type { GroupMemory, ProcessRole, ThreadCpu } from './proc.js';

export interface StepRaw {
  /** The worker's group at rest just before the step. */
  idle?: GroupMemory;
  calls: number;
  joins: Array<{ call: number; ok: boolean; agentMs?: number; error?: string }>;
  turns: Array<TurnResult & { call: number; turn: number }>;
  windowMs: number;
  workerCpuMs: number;
  machineLoad: number;
  memoryPeak: GroupMemory;
  callerCpuShare?: number;
  error?: string;
  /** When the step began (before any caller joined): a job can reach a process no earlier. */
  startedAt: number;
  /** Per-process CPU (pid → ms) and the job processes' threads at the steady window's ends ('ready' and 'done'). */
  steadyStart?: ProcessReading;
  steadyEnd?: ProcessReading;
}

export interface ProcessReading {
  at: number;
  cpu: Map<number, number>;
  threads: Map<number, ThreadCpu[]>;
}

/** What the step's figures need from outside the step: who each process is, its CPU over time, its log marks. */
export interface CostInputs {
  role(pid: number): ProcessRole;
  series(pid: number): Series;
  marks: ReadonlyMap<number, ProcessMarks>;
}

/** A live call's steady cost (the window between every call live and the first leaving), cores. */
export interface SteadyCost {
  windowMs: number;
  /** The worker's processes alive at both ends, per call. */
  groupPerCall: number;
  /** The job processes holding the step's calls, per call. */
  callProcessPerCall: number;
  /** Cores by role over the window: main, call processes, idle (ready) job processes, inference. */
  cores: { main: number; calls: number; spares: number; inference: number; other: number };
  /**
   * Start-up that spilled into the window, CPU-s, kept out of the steady figures: job processes
   * that were still booting at its start (no ready line yet: spares replacing the taken ones) and
   * those forked inside it (all their CPU from fork).
   */
  bootingCpuS: number;
  exited: number;
  /** Where the call processes' CPU went, by thread name, largest first. */
  threads: ThreadShare[];
}

/** Start-up CPU-seconds of the step's call processes (mean of the processes measured). */
export interface StartupSummary {
  processes: number;
  bootCpuS: number;
  sessionCpuS: number;
  /** boot + session: what each call costs before it is live. */
  perCallCpuS: number;
  /** Each measured process: pid, boot and session start CPU-s. */
  each: Array<{ pid: number; bootCpuS?: number; sessionCpuS?: number }>;
}

/** The step's call processes: those whose session started between the step's start and its window's end. */
export function callProcesses(marks: ReadonlyMap<number, ProcessMarks>, from: number, to: number): number[] {
  return [...marks.values()].filter((m) => m.sessionAt !== undefined && m.sessionAt >= from && m.sessionAt <= to).map((m) => m.pid);
}

export function steadyCost(
  start: ProcessReading,
  end: ProcessReading,
  calls: number,
  callPids: readonly number[],
  role: (pid: number) => ProcessRole,
  readyAt: (pid: number) => number | undefined,
): SteadyCost {
  const windowMs = end.at - start.at;
  const w = windowCpu(start.cpu, end.cpu);
  const isCall = new Set(callPids);
  const ms = { main: 0, calls: 0, spares: 0, inference: 0, other: 0 };
  let bootingMs = [...w.forked.values()].reduce((a, b) => a + b, 0);
  for (const [pid, delta] of w.deltas) {
    const r = role(pid);
    if (r === 'job' && !isCall.has(pid)) {
      const ready = readyAt(pid);
      if (ready === undefined || ready > start.at) bootingMs += delta;
      else ms.spares += delta;
    } else ms[r === 'job' ? 'calls' : r] += delta;
  }
  const cores = (v: number) => (windowMs > 0 ? v / windowMs : Number.NaN);
  const total = ms.main + ms.calls + ms.spares + ms.inference + ms.other;
  const readings = callPids.filter((pid) => start.threads.has(pid) && end.threads.has(pid)).map((pid) => ({ pid, start: start.threads.get(pid)!, end: end.threads.get(pid)! }));
  return {
    windowMs,
    groupPerCall: cores(total) / Math.max(1, calls),
    callProcessPerCall: cores(ms.calls) / Math.max(1, callPids.length),
    cores: { main: cores(ms.main), calls: cores(ms.calls), spares: cores(ms.spares), inference: cores(ms.inference), other: cores(ms.other) },
    bootingCpuS: bootingMs / 1000,
    exited: w.exited.length,
    threads: threadShares(readings),
  };
}

export function startupSummary(callPids: readonly number[], inputs: CostInputs, stepStartedAt: number): StartupSummary {
  const each = callPids.map((pid) => {
    const c = startupCost(inputs.series(pid), inputs.marks.get(pid) ?? { pid }, stepStartedAt);
    return { pid, bootCpuS: c.bootMs === undefined ? undefined : c.bootMs / 1000, sessionCpuS: c.sessionMs === undefined ? undefined : c.sessionMs / 1000 };
  });
  const bootCpuS = meanOf(each.map((e) => e.bootCpuS));
  const sessionCpuS = meanOf(each.map((e) => e.sessionCpuS));
  return { processes: each.length, bootCpuS, sessionCpuS, perCallCpuS: bootCpuS + sessionCpuS, each };
}

export interface StepSummary {
  calls: number;
  joined: number;
  agentJoinMs: { p50: number; max: number };
  turnsOk: number;
  turnsFailed: number;
  failures: string[];
  firstSoundMs: { p50: number; p90: number; max: number };
  /** Silences of ≥ 100 ms inside replies: per reply, and their share of the reply's time. */
  gapsPerReply: number;
  gapShare: number;
  /** Cores the worker's process group used while the turns ran (callers are not in it). */
  workerCores: number;
  cpuPerCall: number;
  callsPerCore: number;
  /** What the framework's default load function would report with the worker alone on this host: its cores over all cores. */
  workerAloneLoad: number;
  /** What it does report here: the whole machine's busy share (callers and everything else included). */
  machineLoad: number;
  pssMb: number;
  rssMb: number;
  /** The worker at rest before this step: the base of the PSS per call. */
  idlePssMb: number;
  pssPerCallMb: number;
  callerCpuShare?: number;
  degraded: string[];
  steady?: SteadyCost;
  startup?: StartupSummary;
}

/** `idlePssMb`: the idle worker's PSS, for a step that did not read its own (`raw.idle`). */
export function summarizeStep(raw: StepRaw, cores: number, idlePssMb: number, baseline?: StepSummary, inputs?: CostInputs): StepSummary {
  const idlePss = raw.idle?.pssMb ?? idlePssMb;
  const ok = raw.turns.filter((t) => t.ok && t.callerWaitMs !== undefined);
  const waits = ok.map((t) => t.callerWaitMs!);
  const gaps = ok.map((t) => t.gaps ?? 0);
  const gapMs = ok.reduce((n, t) => n + (t.gapMs ?? 0), 0);
  const replyMs = ok.reduce((n, t) => n + (t.replyAudioMs ?? 0) + (t.gapMs ?? 0), 0);
  const joined = raw.joins.filter((j) => j.ok);
  const agentMs = joined.map((j) => j.agentMs ?? 0);
  const workerCores = raw.windowMs > 0 ? raw.workerCpuMs / raw.windowMs : Number.NaN;
  const summary: StepSummary = {
    calls: raw.calls,
    joined: joined.length,
    agentJoinMs: { p50: percentile(agentMs, 50), max: Math.max(...agentMs, Number.NaN) },
    turnsOk: ok.length,
    turnsFailed: raw.turns.length - ok.length,
    failures: [...raw.joins.filter((j) => !j.ok).map((j) => `call ${j.call} not served: ${j.error}`), ...raw.turns.filter((t) => !t.ok).map((t) => `call ${t.call} turn ${t.turn}: ${t.error}`)],
    firstSoundMs: { p50: percentile(waits, 50), p90: percentile(waits, 90), max: Math.max(...waits, Number.NaN) },
    gapsPerReply: mean(gaps),
    gapShare: replyMs > 0 ? gapMs / replyMs : Number.NaN,
    workerCores,
    cpuPerCall: workerCores / Math.max(1, joined.length),
    callsPerCore: joined.length / workerCores,
    workerAloneLoad: workerCores / cores,
    machineLoad: raw.machineLoad,
    pssMb: raw.memoryPeak.pssMb,
    rssMb: raw.memoryPeak.rssMb,
    idlePssMb: idlePss,
    pssPerCallMb: (raw.memoryPeak.pssMb - idlePss) / Math.max(1, joined.length),
    callerCpuShare: raw.callerCpuShare,
    degraded: [],
  };
  summary.degraded = degradation(summary, raw, baseline);
  if (inputs && raw.steadyStart && raw.steadyEnd) {
    const callPids = callProcesses(inputs.marks, raw.startedAt, raw.steadyEnd.at);
    summary.steady = steadyCost(raw.steadyStart, raw.steadyEnd, joined.length, callPids, inputs.role, (pid) => inputs.marks.get(pid)?.readyAt);
    summary.startup = startupSummary(callPids, inputs, raw.startedAt);
  }
  return summary;
}

/**
 * Against the 1-call step: first-sound p90 more than doubled (and by 300 ms or more), the replies'
 * silences grew by 5 points of their time or more, or a call or a turn failed.
 */
function degradation(s: StepSummary, raw: StepRaw, base?: StepSummary): string[] {
  const why: string[] = [];
  if (raw.error) why.push(`driver: ${raw.error}`);
  if (s.joined < s.calls) why.push(`${s.calls - s.joined} of ${s.calls} calls got no listening agent`);
  if (s.failures.length > s.calls - s.joined) why.push(`${raw.turns.filter((t) => !t.ok).length} turns failed`);
  if (!base) return why;
  if (s.firstSoundMs.p90 > 2 * base.firstSoundMs.p90 && s.firstSoundMs.p90 - base.firstSoundMs.p90 >= 300) {
    why.push(`first-sound p90 ${Math.round(s.firstSoundMs.p90)} ms = ${(s.firstSoundMs.p90 / base.firstSoundMs.p90).toFixed(2)}× the 1-call step`);
  }
  if (s.gapShare - base.gapShare >= 0.05) why.push(`silences inside replies ${(s.gapShare * 100).toFixed(1)}% of reply time (1 call: ${(base.gapShare * 100).toFixed(1)}%)`);
  return why;
}

/** The figures ours / stock divides, from one worker's step. */
export function callCostOf(s: StepSummary): CallCost {
  return {
    calls: s.calls,
    cpuPerCall: s.steady?.groupPerCall ?? Number.NaN,
    callProcessCpuPerCall: s.steady?.callProcessPerCall ?? Number.NaN,
    bootCpuS: s.startup?.bootCpuS ?? Number.NaN,
    sessionCpuS: s.startup?.sessionCpuS ?? Number.NaN,
    startupCpuS: s.startup?.perCallCpuS ?? Number.NaN,
    pssPerCallMb: s.pssPerCallMb,
    firstSoundP50Ms: s.firstSoundMs.p50,
  };
}
