/**
 * One step of `npm run bench:capacity` in figures, and whether it degraded against the 1-call
 * step of the same run (the baseline).
 */
import { mean, percentile } from '../playout.js';
import type { TurnResult } from '../room/turn.js';
import type { GroupMemory } from './proc.js';

export interface StepRaw {
  calls: number;
  joins: Array<{ call: number; ok: boolean; agentMs?: number; error?: string }>;
  turns: Array<TurnResult & { call: number; turn: number }>;
  windowMs: number;
  workerCpuMs: number;
  machineLoad: number;
  memoryPeak: GroupMemory;
  callerCpuShare?: number;
  error?: string;
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
  pssPerCallMb: number;
  callerCpuShare?: number;
  degraded: string[];
}

export function summarizeStep(raw: StepRaw, cores: number, idlePssMb: number, baseline?: StepSummary): StepSummary {
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
    pssPerCallMb: (raw.memoryPeak.pssMb - idlePssMb) / Math.max(1, joined.length),
    callerCpuShare: raw.callerCpuShare,
    degraded: [],
  };
  summary.degraded = degradation(summary, raw, baseline);
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
