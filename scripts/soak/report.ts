/**
 * What a call soak (`npm run soak`) reports: turns asked, answered and lost, split into the turns
 * a fault reached and all the others. A fault reaches the calls it hit (every live call for a
 * server or worker fault, the one call for a killed job) from a little before it starts (a turn
 * in progress) until its recovery window ends; a lost turn there is explained by the fault and by
 * what the caller saw. A lost turn anywhere else is a defect: the soak exits non-zero.
 */

export interface SoakTurn {
  call: string;
  startedAt: number;
  ok: boolean;
  error?: string | null;
  firstSoundMs?: number | null;
}

/** A call placed by one of the soak's callers; `servedAt` is when its agent listened (absent: never served). */
export interface SoakCall {
  name: string;
  placedAt: number;
  servedAt?: number;
  endedAt: number;
  /** Why it was never served, or what ended it early. */
  error?: string;
  /** What the caller saw happen to its connection and agents (`what at +ms`). */
  events: Array<{ at: number; what: string }>;
}

export interface SoakFault {
  kind: string;
  /** What was done, in a few words. */
  action: string;
  startedAt: number;
  /** When the faulted component was back (or the fault was over). */
  endedAt: number;
  /** Until when the calls it hit count as faulted (Infinity: for the rest of those calls). */
  windowEndsAt: number;
  /** The calls it hit. */
  calls: string[];
  figures: Record<string, number | string | boolean | null>;
}

export interface Tally {
  asked: number;
  answered: number;
  lost: number;
}

export interface LostTurn {
  call: string;
  at: number;
  error: string;
  /** What the caller saw between the fault and the turn. */
  seen: string[];
}

export interface FaultReport {
  fault: SoakFault;
  turns: Tally;
  lost: LostTurn[];
  callsPlacedDuring: number;
  callsNotServed: string[];
}

export interface SoakReport {
  turns: Tally;
  outside: Tally & { lostTurns: LostTurn[] };
  faults: FaultReport[];
  calls: { placed: number; served: number; notServed: Array<{ call: string; at: number; error: string; insideFault: string | null }> };
  firstSoundMs: { p50: number | null; p90: number | null; count: number };
}

/** A turn already under way when the fault struck is the fault's too. */
export const TURN_IN_PROGRESS_MS = 30_000;

const tally = (turns: SoakTurn[]): Tally => {
  const answered = turns.filter((t) => t.ok).length;
  return { asked: turns.length, answered, lost: turns.length - answered };
};

function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** The fault that reached `turn` (the first one, when several did), if any. */
export function faultOf(turn: Pick<SoakTurn, 'call' | 'startedAt'>, faults: readonly SoakFault[]): SoakFault | undefined {
  return faults.find((f) => f.calls.includes(turn.call) && turn.startedAt >= f.startedAt - TURN_IN_PROGRESS_MS && turn.startedAt <= f.windowEndsAt);
}

function lostTurn(turn: SoakTurn, calls: ReadonlyMap<string, SoakCall>, since: number): LostTurn {
  const call = calls.get(turn.call);
  const seen = (call?.events ?? []).filter((e) => e.at >= since && e.at <= turn.startedAt + TURN_IN_PROGRESS_MS).map((e) => `${e.what} at +${((e.at - since) / 1000).toFixed(1)} s`);
  return { call: turn.call, at: turn.startedAt, error: turn.error ?? 'no reply', seen };
}

export function soakReport(turns: readonly SoakTurn[], calls: readonly SoakCall[], faults: readonly SoakFault[]): SoakReport {
  const byName = new Map(calls.map((c) => [c.name, c]));
  const outsideTurns = turns.filter((t) => faultOf(t, faults) === undefined);
  const firstSounds = turns.flatMap((t) => (t.ok && typeof t.firstSoundMs === 'number' ? [t.firstSoundMs] : [])).sort((a, b) => a - b);
  const notServed = calls
    .filter((c) => c.servedAt === undefined)
    .map((c) => {
      const inside = faults.find((f) => c.placedAt >= f.startedAt - TURN_IN_PROGRESS_MS && c.placedAt <= f.windowEndsAt);
      return { call: c.name, at: c.placedAt, error: c.error ?? 'no agent', insideFault: inside?.kind ?? null };
    });
  return {
    turns: tally([...turns]),
    outside: { ...tally(outsideTurns), lostTurns: outsideTurns.filter((t) => !t.ok).map((t) => lostTurn(t, byName, t.startedAt - TURN_IN_PROGRESS_MS)) },
    faults: faults.map((fault) => {
      const mine = turns.filter((t) => faultOf(t, faults) === fault);
      const placed = calls.filter((c) => c.placedAt >= fault.startedAt && c.placedAt <= Math.min(fault.windowEndsAt, fault.endedAt + 60_000));
      return {
        fault,
        turns: tally(mine),
        lost: mine.filter((t) => !t.ok).map((t) => lostTurn(t, byName, fault.startedAt)),
        callsPlacedDuring: placed.length,
        callsNotServed: placed.filter((c) => c.servedAt === undefined).map((c) => c.name),
      };
    }),
    calls: { placed: calls.length, served: calls.length - notServed.length, notServed },
    firstSoundMs: { p50: quantile(firstSounds, 0.5), p90: quantile(firstSounds, 0.9), count: firstSounds.length },
  };
}

/** The report as text: the totals, then each fault with every lost turn and what its caller saw. */
export function formatSoakReport(report: SoakReport, startedAt: number): string[] {
  const at = (ms: number) => {
    const s = Math.max(0, Math.round((ms - startedAt) / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  };
  const t = (x: Tally) => `${x.asked} asked, ${x.answered} answered, ${x.lost} lost`;
  const lines = [
    `turns: ${t(report.turns)}; first sound p50 ${report.firstSoundMs.p50 ?? '-'} ms, p90 ${report.firstSoundMs.p90 ?? '-'} ms`,
    `calls: ${report.calls.placed} placed, ${report.calls.served} served`,
    `outside the faults: ${t(report.outside)}`,
  ];
  for (const lost of report.outside.lostTurns) lines.push(`  LOST outside any fault: ${lost.call} at ${at(lost.at)}: ${lost.error}${lost.seen.length ? `; saw ${lost.seen.join(', ')}` : ''}`);
  for (const c of report.calls.notServed) lines.push(`  call not served: ${c.call} placed at ${at(c.at)} (${c.insideFault ? `during ${c.insideFault}` : 'outside any fault'}): ${c.error}`);
  for (const f of report.faults) {
    lines.push(`${f.fault.kind} at ${at(f.fault.startedAt)} (${f.fault.action}; back after ${((f.fault.endedAt - f.fault.startedAt) / 1000).toFixed(1)} s): ${f.fault.calls.length} calls hit; their turns ${t(f.turns)}; ${f.callsPlacedDuring} new calls placed during it, ${f.callsNotServed.length} not served`);
    lines.push(`  figures: ${JSON.stringify(f.fault.figures)}`);
    for (const lost of f.lost) lines.push(`  lost: ${lost.call} at ${at(lost.at)}: ${lost.error}${lost.seen.length ? `; the caller saw ${lost.seen.join(', ')}` : ''}`);
  }
  return lines;
}
