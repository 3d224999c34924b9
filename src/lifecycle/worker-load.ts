/**
 * The load the worker reports to LiveKit (`ServerOptions.loadFunc`, full at 1): the larger of the
 * share of its call cap in use and the share of its CPU budget in use. Either one alone misses a
 * way callers get hurt: a count cannot see a host that other work has made busy, or calls that
 * cost more than measured; the CPU cannot see a burst of calls that have been accepted but not yet
 * started (the hard cap in call-cap.ts refuses those).
 *
 * CPU is read over a moving window, not one report's interval: a call's CPU swings with its
 * turns (a reply costs more than a pause), and a window of a few reports keeps the worker from
 * flipping between full and free on every turn while still marking it full within seconds of a
 * real overload. A job process's start-up (a few CPU-seconds) shows inside the window too, which
 * is right: it competes with the live calls while it lasts.
 */
import type { CallCap, ServerWithJobs } from './call-cap.js';
import type { CpuCounters } from './host-cpu.js';

/** Four of the framework's 2.5 s load reports. */
export const CPU_WINDOW_MS = 10_000;

export interface WorkerLoadOptions {
  /** The call cap; its `loadFunc` is the count's share and how it learns of the server. */
  cap: Pick<CallCap, 'loadFunc'>;
  /** Cumulative CPU counters of what the calls run on (host-cpu.ts). */
  readCpu: () => CpuCounters;
  /** Share of that CPU (0 < budget ≤ 1) the calls may use; undefined: the count alone. */
  cpuBudget: number | undefined;
  /** ms. @defaultValue performance.now */
  now?: () => number;
  /** @defaultValue CPU_WINDOW_MS */
  windowMs?: number;
}

export interface WorkerLoad {
  loadFunc(server: ServerWithJobs): Promise<number>;
  /** Busy share of the CPU over the window as of the last report, 0…1. */
  cpuShare(): number;
}

export function createWorkerLoad(options: WorkerLoadOptions): WorkerLoad {
  const now = options.now ?? (() => performance.now());
  const windowMs = options.windowMs ?? CPU_WINDOW_MS;
  const budget = options.cpuBudget;
  if (budget !== undefined && !(budget > 0 && budget <= 1)) throw new RangeError(`cpuBudget must be in (0, 1], got ${budget}`);
  // The oldest reading kept is the newest one at least a window old, so the share spans the window.
  const readings: { at: number; cpu: CpuCounters }[] = [{ at: now(), cpu: options.readCpu() }];
  let share = 0;

  const sampleCpu = () => {
    const at = now();
    readings.push({ at, cpu: options.readCpu() });
    while (readings.length > 2 && readings[1]!.at <= at - windowMs) readings.shift();
    const first = readings[0]!.cpu;
    const last = readings[readings.length - 1]!.cpu;
    const capacity = last.capacityMs - first.capacityMs;
    share = capacity > 0 ? Math.min(1, Math.max(0, (last.busyMs - first.busyMs) / capacity)) : 0;
    return share;
  };

  return {
    async loadFunc(server) {
      const calls = await options.cap.loadFunc(server);
      const cpu = sampleCpu();
      return Math.min(1, Math.max(calls, budget === undefined ? 0 : cpu / budget));
    },
    cpuShare: () => share,
  };
}
