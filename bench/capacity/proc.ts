/**
 * What the worker costs, read from /proc: its process group's CPU (test/e2e/process-group.ts) and
 * memory, and the machine's CPU as the worker's reported load sees it (src/lifecycle/host-cpu.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { hostCpu } from '../../src/lifecycle/host-cpu.js';
import { processGroup } from '../../test/e2e/process-group.js';

export { groupCpuMs } from '../../test/e2e/process-group.js';

export interface GroupMemory {
  /** Live (not zombie) members. */
  processes: number;
  /** Sum of resident sizes, MB: counts pages the forked job processes share once per process. */
  rssMb: number;
  /** Sum of proportional set sizes, MB: shared pages split among their sharers, so the sum is the group's real share. */
  pssMb: number;
}

function kbField(text: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

export function groupMemory(pgid: number): GroupMemory {
  let rssKb = 0;
  let pssKb = 0;
  let processes = 0;
  for (const member of processGroup(pgid)) {
    if (member.state === 'Z') continue;
    try {
      const rollup = readFileSync(`/proc/${member.pid}/smaps_rollup`, 'utf8');
      rssKb += kbField(rollup, 'Rss');
      pssKb += kbField(rollup, 'Pss');
      processes++;
    } catch {
      // Gone meanwhile.
    }
  }
  return { processes, rssMb: rssKb / 1024, pssMb: pssKb / 1024 };
}

const machine = hostCpu();

/** Busy and total CPU time so far (ms), read as the worker reads it for the load it reports. */
export function machineCpu(): { busy: number; total: number } {
  const { busyMs, capacityMs } = machine.read();
  return { busy: busyMs, total: capacityMs };
}

/** Share of the machine busy between two `machineCpu()` readings, 0…1. */
export const machineLoad = (a: { busy: number; total: number }, b: { busy: number; total: number }): number =>
  b.total === a.total ? 0 : (b.busy - a.busy) / (b.total - a.total);

const CLOCK_TICKS_PER_S = 100;

/** utime + stime of a /proc/…/stat line, in ms; the command name may hold spaces and parentheses. */
function statCpu(stat: string): { name: string; cpuMs: number } {
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { name, cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S };
}

/** One process's CPU so far (all its threads, from its fork), ms; undefined once it is gone. */
export function processCpuMs(pid: number): number | undefined {
  try {
    return statCpu(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpuMs;
  } catch {
    return undefined;
  }
}

export interface ThreadCpu {
  tid: number;
  /** The thread's name (/proc/…/task/TID/comm, 15 characters at most). */
  name: string;
  cpuMs: number;
}

/** Every thread of `pid` with its CPU so far. */
export function threadCpu(pid: number): ThreadCpu[] {
  const out: ThreadCpu[] = [];
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      out.push({ tid: Number(tid), ...statCpu(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')) });
    } catch {
      // Exited meanwhile.
    }
  }
  return out;
}

/** The worker and its direct children (job processes, the inference process): what the framework forks. */
export function workerMembers(leader: number): number[] {
  const pids = new Set<number>([leader]);
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${leader}/task`);
  } catch {
    return [];
  }
  for (const tid of tids) {
    try {
      for (const child of readFileSync(`/proc/${leader}/task/${tid}/children`, 'utf8').trim().split(/\s+/)) if (child) pids.add(Number(child));
    } catch {
      // Thread gone.
    }
  }
  return [...pids];
}

export type ProcessRole = 'main' | 'job' | 'inference' | 'other';

/** What a member of a worker is, from its command line (the framework's job_proc / inference_proc entry files). */
export function roleOf(pid: number, leader: number): ProcessRole {
  if (pid === leader) return 'main';
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes('job_proc_lazy_main')) return 'job';
    if (cmdline.includes('inference_proc_lazy_main')) return 'inference';
  } catch {
    // Gone.
  }
  return 'other';
}
