import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SoakCall, type SoakFault, type SoakTurn, TURN_IN_PROGRESS_MS, formatSoakReport, soakReport } from '../../scripts/soak/report.js';

const call = (name: string, placedAt: number, extra: Partial<SoakCall> = {}): SoakCall => ({ name, placedAt, servedAt: placedAt + 2000, endedAt: placedAt + 240_000, events: [], ...extra });
const fault = (kind: string, startedAt: number, calls: string[], extra: Partial<SoakFault> = {}): SoakFault => ({
  kind,
  action: `${kind} drill`,
  startedAt,
  endedAt: startedAt + 1000,
  windowEndsAt: startedAt + 61_000,
  calls,
  figures: {},
  ...extra,
});

describe('soak report', () => {
  it('puts a lost turn of a call the fault hit inside that fault, with what the caller saw', () => {
    const calls = [call('a', 0, { events: [{ at: 100_500, what: 'reconnecting' }] }), call('b', 0)];
    const turns: SoakTurn[] = [
      { call: 'a', startedAt: 90_000, ok: true, firstSoundMs: 500 },
      { call: 'a', startedAt: 101_000, ok: false, error: 'no reply' },
      { call: 'b', startedAt: 101_000, ok: true, firstSoundMs: 700 },
    ];
    const report = soakReport(turns, calls, [fault('livekit', 100_000, ['a'])]);
    expect(report.turns).toEqual({ asked: 3, answered: 2, lost: 1 });
    expect(report.outside).toMatchObject({ asked: 1, answered: 1, lost: 0 });
    // The turn at 90 s was under way 10 s before the fault: it is the fault's too.
    expect(report.faults[0]!.turns).toEqual({ asked: 2, answered: 1, lost: 1 });
    expect(report.faults[0]!.lost).toEqual([{ call: 'a', at: 101_000, error: 'no reply', seen: ['reconnecting at +0.5 s'] }]);
  });

  it('counts a lost turn of a call the fault did not hit, or after its window, as lost outside', () => {
    const turns: SoakTurn[] = [
      { call: 'b', startedAt: 105_000, ok: false, error: 'no reply' },
      { call: 'a', startedAt: 100_000 + 61_001, ok: false, error: 'no reply' },
    ];
    const report = soakReport(turns, [call('a', 0), call('b', 0)], [fault('job', 100_000, ['a'])]);
    expect(report.outside.lost).toBe(2);
    expect(report.outside.lostTurns.map((t) => t.call).sort()).toEqual(['a', 'b']);
    expect(report.faults[0]!.turns.asked).toBe(0);
  });

  it('keeps a call hit for good (a dead node) faulted for the rest of it', () => {
    const turns: SoakTurn[] = [{ call: 'a', startedAt: 900_000, ok: false, error: 'no reply' }];
    const report = soakReport(turns, [call('a', 0)], [fault('node', 100_000, ['a'], { windowEndsAt: Number.POSITIVE_INFINITY })]);
    expect(report.outside.lost).toBe(0);
    expect(report.faults[0]!.lost).toHaveLength(1);
  });

  it('lists calls never served, and whether a fault was on when they were placed', () => {
    const calls = [call('a', 0), call('b', 100_500, { servedAt: undefined, error: 'no agent joined' }), call('c', 500_000, { servedAt: undefined })];
    const report = soakReport([], calls, [fault('redis', 100_000, ['a'])]);
    expect(report.calls).toMatchObject({ placed: 3, served: 1 });
    expect(report.calls.notServed).toEqual([
      { call: 'b', at: 100_500, error: 'no agent joined', insideFault: 'redis' },
      { call: 'c', at: 500_000, error: 'no agent', insideFault: null },
    ]);
    expect(report.faults[0]).toMatchObject({ callsPlacedDuring: 1, callsNotServed: ['b'] });
    expect(formatSoakReport(report, 0).join('\n')).toContain('call not served: c placed at 8:20 (outside any fault): no agent');
  });

  it('accounts for every turn exactly once, inside one fault or outside (property)', () => {
    const turnArb = fc.record({ call: fc.constantFrom('a', 'b', 'c'), startedAt: fc.integer({ min: 0, max: 1_200_000 }), ok: fc.boolean() });
    const faultArb = fc.record({
      startedAt: fc.integer({ min: 0, max: 1_200_000 }),
      calls: fc.subarray(['a', 'b', 'c']),
      window: fc.integer({ min: 0, max: 300_000 }),
    });
    fc.assert(
      fc.property(fc.array(turnArb, { maxLength: 60 }), fc.array(faultArb, { maxLength: 6 }), (turns, shapes) => {
        const faults = shapes.map((s, i) => fault(`f${i}`, s.startedAt, s.calls, { windowEndsAt: s.startedAt + s.window }));
        const report = soakReport(turns, ['a', 'b', 'c'].map((n) => call(n, 0)), faults);
        const inside = report.faults.reduce((sum, f) => sum + f.turns.asked, 0);
        expect(inside + report.outside.asked).toBe(turns.length);
        expect(report.turns.lost).toBe(turns.filter((t) => !t.ok).length);
        expect(report.faults.reduce((sum, f) => sum + f.lost.length, 0) + report.outside.lostTurns.length).toBe(report.turns.lost);
        // A turn counted outside was reached by no fault.
        for (const t of turns) {
          const reached = faults.some((f) => f.calls.includes(t.call) && t.startedAt >= f.startedAt - TURN_IN_PROGRESS_MS && t.startedAt <= f.windowEndsAt);
          if (!reached && !t.ok) expect(report.outside.lostTurns.some((l) => l.call === t.call && l.at === t.startedAt)).toBe(true);
        }
      }),
    );
  });
});
