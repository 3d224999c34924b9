/**
 * What a call costs, from /proc readings (pure functions; bench/capacity/sampler.ts reads them):
 * start-up per job process (fork → "job process ready", or "acknowledgements ready" when the
 * process prepares them after it; then job assignment → "session started"), the steady window's
 * CPU per process and per thread, and ours / stock ratios.
 */
import { mean } from '../playout.js';
import type { ThreadCpu } from './proc.js';

/** One process's CPU so far (ms) at times (epoch ms), in time order. */
export type Series = ReadonlyArray<readonly [t: number, cpuMs: number]>;

/**
 * The process's CPU at `t`, linear between the samples around it. Before the first sample: the
 * first sample's value, an upper bound (CPU only grows). After the last: unknown.
 */
export function cpuAt(series: Series, t: number): number | undefined {
  if (series.length === 0 || !Number.isFinite(t)) return undefined;
  const first = series[0]!;
  if (t <= first[0]) return first[1];
  const last = series.at(-1)!;
  if (t > last[0]) return undefined;
  let lo = 0;
  let hi = series.length - 1;
  // Invariant: series[lo].t < t <= series[hi].t.
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (series[mid]![0] < t) lo = mid;
    else hi = mid;
  }
  const [t0, c0] = series[lo]!;
  const [t1, c1] = series[hi]!;
  return t1 === t0 ? c1 : c0 + ((c1 - c0) * (t - t0)) / (t1 - t0);
}

/** A job process's log marks (pino `time`, epoch ms). */
export interface ProcessMarks {
  pid: number;
  readyAt?: number;
  /** "acknowledgements ready": the rest of our prewarm, done after the ready line. */
  preparedAt?: number;
  sessionAt?: number;
}

export interface StartupCost {
  pid: number;
  /**
   * CPU from fork to the end of prewarm: its ready line, or its acknowledgements being ready when
   * that comes later and before the job reaches it (after, the rest counts in `sessionMs`).
   */
  bootMs?: number;
  /** CPU from the job reaching it (the later of its ready line and the step's start) to "session started". */
  sessionMs?: number;
}

export function startupCost(series: Series, marks: ProcessMarks, stepStartedAt: number): StartupCost {
  const cost: StartupCost = { pid: marks.pid };
  const reached = Math.max(marks.readyAt ?? Number.NEGATIVE_INFINITY, stepStartedAt);
  if (marks.readyAt !== undefined) {
    const prewarmed = marks.preparedAt === undefined ? marks.readyAt : Math.min(Math.max(marks.readyAt, marks.preparedAt), reached);
    cost.bootMs = cpuAt(series, prewarmed);
  }
  if (marks.sessionAt !== undefined) {
    const at = cpuAt(series, marks.sessionAt);
    const from = cpuAt(series, reached);
    if (at !== undefined && from !== undefined) cost.sessionMs = at - from;
  }
  return cost;
}

export interface WindowCpu {
  /** CPU each process used inside the window, ms (processes alive at both ends). */
  deltas: Map<number, number>;
  /** Forked inside the window: all their CPU (from fork) falls in it, kept apart. */
  forked: Map<number, number>;
  /** Gone before the window's end: what they used after the first reading is lost. */
  exited: number[];
}

export function windowCpu(start: ReadonlyMap<number, number>, end: ReadonlyMap<number, number>): WindowCpu {
  const out: WindowCpu = { deltas: new Map(), forked: new Map(), exited: [] };
  for (const [pid, cpu] of end) {
    const before = start.get(pid);
    if (before === undefined) out.forked.set(pid, cpu);
    else out.deltas.set(pid, cpu - before);
  }
  for (const pid of start.keys()) if (!end.has(pid)) out.exited.push(pid);
  return out;
}

export interface ThreadShare {
  /** The thread's name; the process's first thread (tid = pid, the JS main thread) is `<name> (main)`. */
  name: string;
  threads: number;
  cpuMs: number;
  /** Of all the processes' threads' CPU in the window. */
  share: number;
}

/**
 * Where the processes' CPU went between two readings, by thread name, largest first. A thread
 * born in between counts from its start; one that ended in between is lost (its last reading is gone).
 */
export function threadShares(readings: ReadonlyArray<{ pid: number; start: ThreadCpu[]; end: ThreadCpu[] }>): ThreadShare[] {
  const byName = new Map<string, { threads: number; cpuMs: number }>();
  let total = 0;
  for (const { pid, start, end } of readings) {
    const before = new Map(start.map((t) => [t.tid, t.cpuMs]));
    for (const t of end) {
      const ms = Math.max(0, t.cpuMs - (before.get(t.tid) ?? 0));
      const name = t.tid === pid ? `${t.name} (main)` : t.name;
      const entry = byName.get(name) ?? { threads: 0, cpuMs: 0 };
      entry.threads++;
      entry.cpuMs += ms;
      byName.set(name, entry);
      total += ms;
    }
  }
  return [...byName]
    .map(([name, v]) => ({ name, threads: v.threads, cpuMs: v.cpuMs, share: total > 0 ? v.cpuMs / total : 0 }))
    .sort((a, b) => b.cpuMs - a.cpuMs || a.name.localeCompare(b.name));
}

/** The mean of the defined, finite values; NaN when there is none. */
export function meanOf(values: ReadonlyArray<number | undefined>): number {
  return mean(values.filter((v): v is number => v !== undefined && Number.isFinite(v)));
}

/** One worker's cost figures at one step: what the comparison divides. */
export interface CallCost {
  calls: number;
  /** Steady: the worker's whole process group, cores per live call. */
  cpuPerCall: number;
  /** Steady: the job processes that hold the calls only, cores per call. */
  callProcessCpuPerCall: number;
  /** Start-up, CPU-seconds: a call process's boot and prewarm, its session start (means over the step's call processes), their sum. */
  bootCpuS: number;
  sessionCpuS: number;
  startupCpuS: number;
  pssPerCallMb: number;
  firstSoundP50Ms: number;
}

export type CostRatios = { [K in Exclude<keyof CallCost, 'calls'>]: number };

/** ours / stock for every figure; NaN where either is unknown or stock's is 0. */
export function costRatios(ours: CallCost, stock: CallCost): CostRatios {
  const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : Number.NaN);
  return {
    cpuPerCall: ratio(ours.cpuPerCall, stock.cpuPerCall),
    callProcessCpuPerCall: ratio(ours.callProcessCpuPerCall, stock.callProcessCpuPerCall),
    bootCpuS: ratio(ours.bootCpuS, stock.bootCpuS),
    sessionCpuS: ratio(ours.sessionCpuS, stock.sessionCpuS),
    startupCpuS: ratio(ours.startupCpuS, stock.startupCpuS),
    pssPerCallMb: ratio(ours.pssPerCallMb, stock.pssPerCallMb),
    firstSoundP50Ms: ratio(ours.firstSoundP50Ms, stock.firstSoundP50Ms),
  };
}
