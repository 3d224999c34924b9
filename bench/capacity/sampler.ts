/**
 * Watches the members of one or more workers (the main process and what it forks) and records
 * each process's CPU every `intervalMs`, from when it is first seen until the bench ends: the
 * series the start-up costs are read from (./cost.ts `startupCost`).
 */
import type { Series } from './cost.js';
import { type ProcessRole, processCpuMs, roleOf, workerMembers } from './proc.js';

export class CpuSampler {
  readonly #series = new Map<number, Array<[number, number]>>();
  readonly #roles = new Map<number, ProcessRole>();
  readonly #leaderOf = new Map<number, number>();
  readonly #leaders = new Set<number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly intervalMs = 250) {}

  /** Starts watching `leader`'s members (idempotent). */
  watch(leader: number): void {
    this.#leaders.add(leader);
    this.sample();
    this.#timer ??= setInterval(() => this.sample(), this.intervalMs);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One reading of every member now; returns it per leader's member (pid → CPU ms). */
  sample(only?: number): Map<number, number> {
    const now = Date.now();
    const reading = new Map<number, number>();
    for (const leader of this.#leaders) {
      if (only !== undefined && leader !== only) continue;
      for (const pid of workerMembers(leader)) {
        const cpu = processCpuMs(pid);
        if (cpu === undefined) continue;
        if (!this.#roles.has(pid)) {
          this.#roles.set(pid, roleOf(pid, leader));
          this.#leaderOf.set(pid, leader);
          this.#series.set(pid, []);
        }
        this.#series.get(pid)!.push([now, cpu]);
        reading.set(pid, cpu);
      }
    }
    return reading;
  }

  series(pid: number): Series {
    return this.#series.get(pid) ?? [];
  }

  role(pid: number): ProcessRole {
    return this.#roles.get(pid) ?? 'other';
  }

  /** Every process ever seen under `leader`, with its role. */
  members(leader: number): Array<{ pid: number; role: ProcessRole }> {
    return [...this.#leaderOf].filter(([, l]) => l === leader).map(([pid]) => ({ pid, role: this.role(pid) }));
  }
}
