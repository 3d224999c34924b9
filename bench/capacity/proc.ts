/**
 * What the worker costs, read from /proc: its process group's CPU (test/e2e/process-group.ts) and
 * memory, and the whole machine's CPU as the framework's default load function sees it
 * (1 − idle/total over every core, @livekit/agents cpu.ts).
 */
import { readFileSync } from 'node:fs';
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

/** Busy and total jiffies of all cores so far (/proc/stat's first line). */
export function machineCpu(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle + iowait, as os.cpus()' `idle` roughly is.
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** Share of the machine busy between two `machineCpu()` readings, 0…1. */
export const machineLoad = (a: { busy: number; total: number }, b: { busy: number; total: number }): number =>
  b.total === a.total ? 0 : (b.busy - a.busy) / (b.total - a.total);
