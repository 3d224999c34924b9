/** A worker's process group as /proc shows it: the worker, its job processes, the inference process. */
import { readFileSync, readdirSync } from 'node:fs';

export interface GroupMember {
  pid: number;
  ppid: number;
  /** `S`, `R`, `Z` (a zombie), … */
  state: string;
  /** User + system CPU so far, in ms. */
  cpuMs: number;
}

const CLOCK_TICKS_PER_S = 100;

export function processGroup(pgid: number): GroupMember[] {
  const members: GroupMember[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After "pid (comm) ": state ppid pgrp … utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[2] !== String(pgid)) continue;
      members.push({ pid: Number(entry), ppid: Number(fields[1]), state: fields[0]!, cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S });
    } catch {
      // Gone meanwhile.
    }
  }
  return members;
}

/** Live (not zombie) members: what a worker left behind when it exited. */
export const liveInGroup = (pgid: number): string[] =>
  processGroup(pgid)
    .filter((m) => m.state !== 'Z')
    .map((m) => `${m.pid} (ppid ${m.ppid}, ${m.state})`);

/** CPU the group's live members have used so far, in ms. */
export const groupCpuMs = (pgid: number): number => processGroup(pgid).reduce((n, m) => n + m.cpuMs, 0);

/** A process and everything it started, each with its command line (argv). */
export function processTree(rootPid: number): { pid: number; argv: string[] }[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const inTree = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!inTree.has(pid) && inTree.has(ppid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  return [...inTree].flatMap((pid) => {
    try {
      return [{ pid, argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '') }];
    } catch {
      return [];
    }
  });
}
