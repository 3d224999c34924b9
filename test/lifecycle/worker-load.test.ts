import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCallCap } from '../../src/lifecycle/call-cap.js';
import type { CpuCounters } from '../../src/lifecycle/host-cpu.js';
import { createWorkerLoad } from '../../src/lifecycle/worker-load.js';

const CORES = 2;

/** A host whose cores were `share` busy since the last reading, one report interval at a time. */
function fakeHost() {
  const counters: CpuCounters = { busyMs: 0, capacityMs: 0 };
  let t = 0;
  return {
    now: () => t,
    read: () => ({ ...counters }),
    /** `ms` of wall time pass with `share` (0…1) of the cores busy. */
    run(ms: number, share: number) {
      t += ms;
      counters.busyMs += ms * CORES * share;
      counters.capacityMs += ms * CORES;
    },
  };
}

const running = (calls: number) => ({ activeJobs: Array.from({ length: calls }, (_, i) => ({ job: { id: `j${i}` } })) });

/** The load reported after `ms` of `share` CPU with `calls` live, on a fresh worker. */
async function reported(calls: number, share: number, opts: { maxCalls: number; cpuBudget: number | undefined }) {
  const host = fakeHost();
  const cap = createCallCap({ maxCalls: opts.maxCalls, now: host.now });
  const load = createWorkerLoad({ cap, readCpu: host.read, cpuBudget: opts.cpuBudget, now: host.now, windowMs: 10_000 });
  host.run(2500, share);
  return load.loadFunc(running(calls));
}

const settings = fc.record({ maxCalls: fc.integer({ min: 1, max: 64 }), cpuBudget: fc.option(fc.double({ min: 0.1, max: 1, noNaN: true }), { nil: undefined }) });
const share = fc.double({ min: 0, max: 1, noNaN: true });
const calls = fc.integer({ min: 0, max: 100 });

describe('the load the worker reports', () => {
  it('grows with the calls and with the CPU, and never exceeds 1', async () => {
    await fc.assert(
      fc.asyncProperty(settings, calls, calls, share, share, async (s, c1, c2, u1, u2) => {
        const [fewer, more] = [Math.min(c1, c2), Math.max(c1, c2)];
        const [idler, busier] = [Math.min(u1, u2), Math.max(u1, u2)];
        const low = await reported(fewer, idler, s);
        expect(await reported(more, idler, s)).toBeGreaterThanOrEqual(low);
        expect(await reported(fewer, busier, s)).toBeGreaterThanOrEqual(low);
        for (const load of [low, await reported(more, busier, s)]) {
          expect(load).toBeGreaterThanOrEqual(0);
          expect(load).toBeLessThanOrEqual(1);
        }
      }),
    );
  });

  it('is full when the CPU is over its budget, however few the calls, so LiveKit stops sending calls', async () => {
    expect(await reported(1, 0.75, { maxCalls: 3, cpuBudget: 0.7 })).toBe(1);
    expect(await reported(0, 1, { maxCalls: 3, cpuBudget: 0.7 })).toBe(1);
    // Under the budget, the calls decide.
    expect(await reported(1, 0.35, { maxCalls: 3, cpuBudget: 0.7 })).toBeCloseTo(0.5);
    expect(await reported(2, 0.1, { maxCalls: 3, cpuBudget: 0.7 })).toBeCloseTo(2 / 3);
    // With the budget off (AGENT_CPU_BUDGET=off), the calls alone.
    expect(await reported(1, 1, { maxCalls: 3, cpuBudget: undefined })).toBeCloseTo(1 / 3);
  });

  it('reads the CPU over the last window, not since start nor over one report', async () => {
    const host = fakeHost();
    const cap = createCallCap({ maxCalls: 100, now: host.now });
    const load = createWorkerLoad({ cap, readCpu: host.read, cpuBudget: 1, now: host.now, windowMs: 10_000 });
    const report = async (share: number) => {
      host.run(2500, share);
      return load.loadFunc(running(0));
    };
    // A minute idle, then the host busy: the whole window busy reads fully busy.
    for (let i = 0; i < 24; i++) await report(0);
    for (let i = 0; i < 4; i++) await report(1);
    expect(load.cpuShare()).toBeCloseTo(1);
    // One idle report afterwards averages with the window's busy ones (not 0, as one report would say).
    expect(await report(0)).toBeCloseTo(3 / 4);
    for (let i = 0; i < 3; i++) await report(0);
    expect(await report(0)).toBeCloseTo(0);
  });

  it('refuses a budget outside (0, 1]', () => {
    const host = fakeHost();
    const cap = createCallCap({ maxCalls: 1 });
    expect(() => createWorkerLoad({ cap, readCpu: host.read, cpuBudget: 0 })).toThrow(/cpuBudget/);
    expect(() => createWorkerLoad({ cap, readCpu: host.read, cpuBudget: 70 })).toThrow(/cpuBudget/);
  });
});
