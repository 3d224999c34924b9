/**
 * The CPU the worker's calls run on: how many cores there are, and how much of them is busy.
 *
 * Why the host, not the worker's own processes: every call runs in a job process the framework
 * forks, so the main process's own `process.cpuUsage()` sees none of them, and summing the
 * worker's process tree would still miss what callers suffer from — anything else on the cores
 * (another worker, livekit-server, a build) delays a call's audio just as much as the worker's
 * own calls do. So the measure is how busy the host's cores are, whoever made them busy.
 *
 * Why a CPU quota wins when there is one: in a container limited to N cores (Docker `--cpus`,
 * a Kubernetes CPU limit) the kernel throttles the container at N while `/proc/stat` still shows
 * the whole node, which may be idle. There the container's own usage against its quota is what
 * its callers suffer. The framework reads the quota too (`@livekit/agents` src/cpu.ts), but under
 * cgroup v1 with no quota it assumes 2 cores whatever the host has; this reads the host's cores.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';

/** Cumulative counters since some fixed start: the busy share is Δbusy / Δcapacity. */
export interface CpuCounters {
  /** CPU time spent, ms (all cores together). */
  busyMs: number;
  /** CPU time there was to spend, ms (all cores together). */
  capacityMs: number;
}

export interface HostCpu {
  /** Cores the worker's calls may use (a quota may be fractional). */
  cores: number;
  /** Where `cores` comes from. */
  source: 'cgroup quota' | 'host cores';
  read(): CpuCounters;
}

/** Host counters from `/proc/stat`: steal counts as busy (a VM's callers lose that time too). */
function procStat(root: string): CpuCounters | undefined {
  let line: string | undefined;
  try {
    line = readFileSync(`${root}/proc/stat`, 'utf8').split('\n', 1)[0];
  } catch {
    return undefined;
  }
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user).
  const f = (line ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
  if (f.length < 8 || f.some((n) => !Number.isFinite(n))) return undefined;
  const total = f.reduce((a, b) => a + b, 0);
  const idle = f[3]! + f[4]!;
  // USER_HZ is 100 on every Linux this runs on; only the ratio matters anyway.
  return { busyMs: (total - idle) * 10, capacityMs: total * 10 };
}

/** Where `/proc/stat` is missing (macOS in development): libuv's per-core times. */
function osCpus(): CpuCounters {
  let busyMs = 0;
  let capacityMs = 0;
  for (const { times } of cpus()) {
    const total = times.user + times.nice + times.sys + times.idle + times.irq;
    busyMs += total - times.idle;
    capacityMs += total;
  }
  return { busyMs, capacityMs };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The container's quota in cores and a reader of its usage in ms, when a quota is set. */
function cgroupQuota(root: string): { cores: number; usageMs: () => number | undefined } | undefined {
  const v2 = readText(`${root}/sys/fs/cgroup/cpu.max`)?.split(/\s+/);
  if (v2 && v2[0] !== 'max') {
    const cores = Number(v2[0]) / Number(v2[1] ?? 100_000);
    const usageMs = () => {
      const match = /^usage_usec\s+(\d+)/m.exec(readText(`${root}/sys/fs/cgroup/cpu.stat`) ?? '');
      return match ? Number(match[1]) / 1000 : undefined;
    };
    if (cores > 0 && usageMs() !== undefined) return { cores, usageMs };
  }
  const quota = Number(readText(`${root}/sys/fs/cgroup/cpu/cpu.cfs_quota_us`));
  const period = Number(readText(`${root}/sys/fs/cgroup/cpu/cpu.cfs_period_us`));
  if (quota > 0 && period > 0) {
    const usageMs = () => {
      const ns = Number(readText(`${root}/sys/fs/cgroup/cpuacct/cpuacct.usage`));
      return Number.isFinite(ns) && ns > 0 ? ns / 1e6 : undefined;
    };
    if (usageMs() !== undefined) return { cores: quota / period, usageMs };
  }
  return undefined;
}

/**
 * Finds what the worker runs on once; `read()` is cheap enough for every load report. For tests:
 * `root` stands in for `/` (holding `proc/stat` and `sys/fs/cgroup/`), `now` for the clock (ms).
 */
export function hostCpu(options: { root?: string; now?: () => number } = {}): HostCpu {
  const root = options.root ?? '';
  const now = options.now ?? (() => performance.now());
  const quota = cgroupQuota(root);
  if (quota) {
    const started = now();
    const startUsage = quota.usageMs() ?? 0;
    return {
      cores: quota.cores,
      source: 'cgroup quota',
      read: () => ({
        busyMs: (quota.usageMs() ?? startUsage) - startUsage,
        capacityMs: (now() - started) * quota.cores,
      }),
    };
  }
  return { cores: availableParallelism(), source: 'host cores', read: () => procStat(root) ?? osCpus() };
}
