/** bench:capacity's cost arithmetic: start-up from per-process CPU series, the steady window, threads, ours / stock. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../bench/capacity/args.js';
import { type CallCost, type Series, costRatios, cpuAt, meanOf, startupCost, threadShares, windowCpu } from '../../bench/capacity/cost.js';
import type { ProcessRole } from '../../bench/capacity/proc.js';
import { type ProcessReading, callProcesses, startupSummary, steadyCost } from '../../bench/capacity/summary.js';
import { processMarks } from '../../bench/capacity/worker-log.js';

const series: Series = [
  [1000, 100],
  [1250, 150],
  [1500, 150],
  [2000, 400],
];

describe('cpuAt', () => {
  it.each([
    ['before the first sample: the first value (an upper bound)', 500, 100],
    ['at the first sample', 1000, 100],
    ['between two samples: linear', 1125, 125],
    ['on a flat stretch', 1400, 150],
    ['at the last sample', 2000, 400],
    ['after the last sample: unknown', 2001, undefined],
    ['not a time', Number.NaN, undefined],
  ])('%s', (_name, t, expected) => {
    expect(cpuAt(series, t)).toBe(expected);
  });

  it('knows nothing of an empty series', () => {
    expect(cpuAt([], 1000)).toBeUndefined();
  });

  it('stays between the samples around t and never falls as t grows (any rising series)', () => {
    const rising = fc
      .array(fc.tuple(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 0, max: 300 })), { minLength: 1, maxLength: 40 })
      .map((steps) => {
        let t = 0;
        let c = 0;
        return steps.map(([dt, dc]) => [(t += dt), (c += dc)] as const);
      });
    fc.assert(
      fc.property(rising, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (s, u, v) => {
        const span = s.at(-1)![0];
        const [a, b] = [Math.min(u, v) * span, Math.max(u, v) * span];
        const ca = cpuAt(s, a)!;
        const cb = cpuAt(s, b)!;
        expect(cb).toBeGreaterThanOrEqual(ca - 1e-9);
        expect(ca).toBeGreaterThanOrEqual(s[0]![1]);
        expect(cb).toBeLessThanOrEqual(s.at(-1)![1]);
      }),
    );
  });
});

describe('startupCost', () => {
  it.each([
    ['prewarmed before the step: boot at its ready line, session from the step start', { pid: 7, readyAt: 1000, sessionAt: 2000 }, 1500, { pid: 7, bootMs: 100, sessionMs: 250 }],
    ['forked during the step: session counts from its ready line', { pid: 7, readyAt: 1250, sessionAt: 2000 }, 1100, { pid: 7, bootMs: 150, sessionMs: 250 }],
    ['no session line: boot only', { pid: 7, readyAt: 1250 }, 1100, { pid: 7, bootMs: 150 }],
    ['session after the last sample: unknown', { pid: 7, readyAt: 1000, sessionAt: 3000 }, 1500, { pid: 7, bootMs: 100 }],
    ['no ready line: session from the step start', { pid: 7, sessionAt: 2000 }, 1250, { pid: 7, sessionMs: 250 }],
    ['acknowledgements ready before the job: boot until then', { pid: 7, readyAt: 1000, preparedAt: 1250, sessionAt: 2000 }, 1500, { pid: 7, bootMs: 150, sessionMs: 250 }],
    ['acknowledgements still preparing when the job came: the rest counts in the session', { pid: 7, readyAt: 1000, preparedAt: 1750, sessionAt: 2000 }, 1250, { pid: 7, bootMs: 150, sessionMs: 250 }],
  ])('%s', (_name, marks, stepStartedAt, expected) => {
    expect(startupCost(series, marks, stepStartedAt)).toEqual(expected);
  });
});

describe('windowCpu', () => {
  it('gives the processes alive at both ends their difference and keeps the forked and the exited apart', () => {
    const w = windowCpu(
      new Map([
        [1, 100],
        [2, 50],
        [3, 10],
      ]),
      new Map([
        [1, 160],
        [2, 50],
        [4, 900],
      ]),
    );
    expect([...w.deltas]).toEqual([
      [1, 60],
      [2, 0],
    ]);
    expect([...w.forked]).toEqual([[4, 900]]);
    expect(w.exited).toEqual([3]);
  });
});

const thread = (tid: number, name: string, cpuMs: number) => ({ tid, name, cpuMs });

describe('threadShares', () => {
  it('sums by name over the processes, marks the main thread, orders by CPU', () => {
    const shares = threadShares([
      { pid: 10, start: [thread(10, 'node', 1000), thread(11, 'libuv-worker', 0), thread(12, 'tokio-runtime-w', 0)], end: [thread(10, 'node', 1500), thread(11, 'libuv-worker', 100), thread(12, 'tokio-runtime-w', 200)] },
      { pid: 20, start: [thread(20, 'node', 0), thread(21, 'tokio-runtime-w', 0)], end: [thread(20, 'node', 100), thread(21, 'tokio-runtime-w', 100), thread(22, 'V8 DefaultWorke', 0)] },
    ]);
    expect(shares.map((s) => [s.name, s.threads, s.cpuMs])).toEqual([
      ['node (main)', 2, 600],
      ['tokio-runtime-w', 2, 300],
      ['libuv-worker', 1, 100],
      ['V8 DefaultWorke', 1, 0],
    ]);
    expect(shares[0]!.share).toBeCloseTo(0.6);
  });

  it('shares add up to 1 whenever any thread ran (any readings)', () => {
    const threads = fc.uniqueArray(fc.record({ tid: fc.integer({ min: 1, max: 50 }), name: fc.constantFrom('node', 'libuv-worker', 'tokio-runtime-w', 'V8 DefaultWorke'), before: fc.nat(1000), used: fc.nat(1000) }), { selector: (t) => t.tid, minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(threads, (ts) => {
        const shares = threadShares([{ pid: ts[0]!.tid, start: ts.map((t) => thread(t.tid, t.name, t.before)), end: ts.map((t) => thread(t.tid, t.name, t.before + t.used)) }]);
        const used = ts.reduce((n, t) => n + t.used, 0);
        const sum = shares.reduce((n, s) => n + s.share, 0);
        expect(used === 0 ? sum : Math.abs(sum - 1)).toBeLessThan(1e-9);
        expect(shares.reduce((n, s) => n + s.cpuMs, 0)).toBe(used);
      }),
    );
  });
});

describe('steadyCost and startupSummary', () => {
  const roles: Record<number, ProcessRole> = { 1: 'main', 2: 'job', 3: 'job', 4: 'job', 5: 'inference', 6: 'job', 7: 'job' };
  const role = (pid: number) => roles[pid] ?? 'other';
  const start: ProcessReading = { at: 10_000, cpu: new Map([[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [7, 100]]), threads: new Map([[2, [thread(2, 'node', 0)]], [3, [thread(3, 'node', 0)]]]) };
  const end: ProcessReading = { at: 20_000, cpu: new Map([[1, 1000], [2, 4000], [3, 6000], [4, 500], [5, 2000], [6, 3000], [7, 1100]]), threads: new Map([[2, [thread(2, 'node', 4000)]], [3, [thread(3, 'node', 6000)]]]) };

  // 4 was ready before the window (an idle spare); 7 logged ready inside it (a replacement still booting); 6 was forked in it.
  const readyAt = (pid: number) => ({ 4: 5000, 7: 15_000 })[pid];

  it('splits the window by role, keeps start-up spilled into it (booting and forked spares) out, and divides by the calls', () => {
    const s = steadyCost(start, end, 2, [2, 3], role, readyAt);
    expect(s.windowMs).toBe(10_000);
    expect(s.cores).toEqual({ main: 0.1, calls: 1, spares: 0.05, inference: 0.2, other: 0 });
    expect(s.groupPerCall).toBeCloseTo(1.35 / 2);
    expect(s.callProcessPerCall).toBeCloseTo(0.5);
    expect(s.bootingCpuS).toBe(4);
    expect(s.threads).toEqual([{ name: 'node (main)', threads: 2, cpuMs: 10_000, share: 1 }]);
  });

  it('takes as call processes those whose session started inside the step', () => {
    const marks = processMarks(
      [
        '{"level":30,"time":900,"pid":2,"msg":"job process ready"}',
        '{"level":30,"time":1000,"pid":3,"msg":"job process ready"}',
        '{"level":30,"time":1400,"pid":3,"acks":6,"fromStore":6,"msg":"acknowledgements ready"}',
        '{"level":30,"time":5000,"pid":2,"job":"AJ_x","msg":"session started"}',
        'not json "session started"',
        '{"level":30,"time":5100,"pid":3,"msg":"session started"}',
        '{"level":30,"time":99000,"pid":4,"msg":"session started"}',
        '{"level":30,"time":5200,"msg":"session started"}',
      ].join('\n'),
    );
    expect([...marks.values()]).toEqual([
      { pid: 2, readyAt: 900, sessionAt: 5000 },
      { pid: 3, readyAt: 1000, preparedAt: 1400, sessionAt: 5100 },
      { pid: 4, sessionAt: 99000 },
    ]);
    const pids = callProcesses(marks, 4000, 20_000);
    expect(pids).toEqual([2, 3]);
    const linear: Series = [
      [0, 0],
      [100_000, 100_000],
    ];
    const up = startupSummary(pids, { role, series: () => linear, marks }, 4000);
    // Boot: CPU at the ready line (900 ms), or at the acknowledgements' (1400 ms); session: from the
    // step's start (4000) to the session line.
    expect(up.each).toEqual([
      { pid: 2, bootCpuS: 0.9, sessionCpuS: 1 },
      { pid: 3, bootCpuS: 1.4, sessionCpuS: 1.1 },
    ]);
    expect(up.bootCpuS).toBeCloseTo(1.15);
    expect(up.perCallCpuS).toBeCloseTo(1.15 + 1.05);
  });
});

describe('costRatios', () => {
  const cost = (v: number): CallCost => ({ calls: 1, cpuPerCall: v, callProcessCpuPerCall: v, bootCpuS: v, sessionCpuS: v, startupCpuS: v, pssPerCallMb: v, firstSoundP50Ms: v });
  it.each([
    ['half', 0.5, 1, 0.5],
    ['twice', 2, 1, 2],
    ["stock's figure is 0", 1, 0, Number.NaN],
    ['ours unknown', Number.NaN, 1, Number.NaN],
  ])('%s', (_name, ours, stock, expected) => {
    for (const ratio of Object.values(costRatios(cost(ours), cost(stock)))) expect(ratio).toBe(expected);
  });

  it('meanOf skips the unknown', () => {
    expect(meanOf([3, undefined, 1, Number.NaN, 5])).toBe(3);
    expect(meanOf([undefined])).toBeNaN();
  });
});

describe('parseArgs --compare', () => {
  it('accepts stock', () => {
    expect(parseArgs(['--compare', 'stock', '--steps', '1,2'])).toMatchObject({ compare: 'stock', steps: [1, 2] });
  });
  it.each([
    [['--compare', 'python'], /--compare takes stock/],
    [['--compare'], /--compare takes stock/],
    [['--compare', 'stock', '--tts', 'local'], /needs --tts cartesia/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
  });
});
