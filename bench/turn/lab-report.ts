/**
 * The offline turn lab's figures: one row per setting, the Pareto-best rows for the targets, and
 * the tables that print them.
 */
import { percentile } from '../playout.js';
import type { TurnSetting, UtteranceResult } from './turn-sim.js';

/** The turn-taking targets: false ends on at most 2% of pauses up to 700 ms; commit ≤ ~450 ms when the caller is done. */
export const FALSE_END_TARGET = 0.02;
export const SHORT_PAUSE_MS = 700;
export const COMMIT_TARGET_MS = 450;

export interface LabRow extends TurnSetting {
  shortPauses: number;
  shortFalseEnds: number;
  allPauses: number;
  allFalseEnds: number;
  /** False ends at pauses after words that are not yet a turn (the clear ones). */
  clearFalseEnds: number;
  falseEndShort: number;
  /** Over the clear pauses ≤ 700 ms only: what a judge of the words alone can be held to. */
  falseEndClearShort: number;
  falseEndAll: number;
  commitP50: number;
  commitP90: number;
  /** Over the turns the detector judged over at their end (the minDelay path). */
  commitOverP50: number;
  commitOverP90: number;
  turnsJudgedOver: number;
  falseAckShort: number;
  falseAckAll: number;
  ackP50: number;
  ackP90: number;
  ackEarlyShare: number;
  vadEndP50: number;
  vadEndP90: number;
  inPieceCommits: number;
  neverCommitted: number;
  byLanguage: Record<'ko' | 'en', { falseEndShort: number; commitP50: number; commitP90: number }>;
  /** Other settings of the Pareto front with exactly these figures. */
  ties?: number;
}

export function labRow(setting: TurnSetting, results: readonly UtteranceResult[]): LabRow {
  const pauses = results.flatMap((r) => r.pauses);
  const short = pauses.filter((p) => p.pauseMs <= SHORT_PAUSE_MS);
  const committed = results.filter((r) => !Number.isNaN(r.commitMs));
  const over = committed.filter((r) => r.commitOver);
  const rate = (n: number, of: number) => (of === 0 ? 0 : n / of);
  const byLanguage = (language: 'ko' | 'en') => {
    const own = results.filter((r) => r.language === language);
    const ownShort = own.flatMap((r) => r.pauses).filter((p) => p.pauseMs <= SHORT_PAUSE_MS);
    const commits = own.map((r) => r.commitMs).filter((ms) => !Number.isNaN(ms));
    return { falseEndShort: rate(ownShort.filter((p) => p.falseEnd).length, ownShort.length), commitP50: percentile(commits, 50), commitP90: percentile(commits, 90) };
  };
  return {
    ...setting,
    shortPauses: short.length,
    shortFalseEnds: short.filter((p) => p.falseEnd).length,
    allPauses: pauses.length,
    allFalseEnds: pauses.filter((p) => p.falseEnd).length,
    clearFalseEnds: pauses.filter((p) => p.falseEnd && !p.completeSoFar).length,
    falseEndShort: rate(short.filter((p) => p.falseEnd).length, short.length),
    falseEndClearShort: rate(short.filter((p) => p.falseEnd && !p.completeSoFar).length, short.filter((p) => !p.completeSoFar).length),
    falseEndAll: rate(pauses.filter((p) => p.falseEnd).length, pauses.length),
    commitP50: percentile(committed.map((r) => r.commitMs), 50),
    commitP90: percentile(committed.map((r) => r.commitMs), 90),
    commitOverP50: percentile(over.map((r) => r.commitMs), 50),
    commitOverP90: percentile(over.map((r) => r.commitMs), 90),
    turnsJudgedOver: over.length,
    falseAckShort: rate(short.filter((p) => p.falseAck).length, short.length),
    falseAckAll: rate(pauses.filter((p) => p.falseAck).length, pauses.length),
    ackP50: percentile(committed.map((r) => r.ackMs), 50),
    ackP90: percentile(committed.map((r) => r.ackMs), 90),
    ackEarlyShare: rate(results.filter((r) => r.ackEarly).length, results.length),
    vadEndP50: percentile(results.map((r) => r.vadEndMs).filter((ms) => !Number.isNaN(ms)), 50),
    vadEndP90: percentile(results.map((r) => r.vadEndMs).filter((ms) => !Number.isNaN(ms)), 90),
    inPieceCommits: results.reduce((n, r) => n + r.inPieceCommits, 0),
    neverCommitted: results.length - committed.length,
    byLanguage: { ko: byLanguage('ko'), en: byLanguage('en') },
  };
}

/**
 * The rows that meet the false-end target and that no other such row beats on every count:
 * false ends over all pauses, commit p50 and p90, and the early acknowledgement's p50. The
 * target is held over all pauses ≤ 700 ms, or over the clear ones only (`on: 'clear'`).
 */
export function paretoBest(rows: readonly LabRow[], on: 'all' | 'clear' = 'all'): LabRow[] {
  const meets = (r: LabRow) => (on === 'all' ? r.falseEndShort : r.falseEndClearShort) <= FALSE_END_TARGET;
  const eligible = rows.filter((r) => meets(r) && r.neverCommitted === 0);
  const keys = (r: LabRow) => [r.falseEndAll, r.commitP50, r.commitP90, r.ackP50];
  const dominates = (a: LabRow, b: LabRow) => {
    const [ka, kb] = [keys(a), keys(b)];
    return ka.every((v, i) => v <= kb[i]!) && ka.some((v, i) => v < kb[i]!);
  };
  const front = eligible.filter((r) => !eligible.some((o) => o !== r && dominates(o, r)));
  return collapseTies(front).sort((a, b) => a.commitP50 - b.commitP50 || a.commitP90 - b.commitP90 || a.falseEndAll - b.falseEndAll);
}

const DETECTOR_RANK = { none: 0, transcript: 1, audio: 2, both: 3 } as const;

/**
 * Settings with identical figures shown once, as the simplest of them (fewest detectors), e.g.
 * "both" below minSilenceDuration 224 ms, where the audio model is never asked.
 */
function collapseTies(rows: readonly LabRow[]): LabRow[] {
  const figures = (r: LabRow) =>
    JSON.stringify([r.falseEndShort, r.falseEndClearShort, r.falseEndAll, r.commitP50, r.commitP90, r.commitOverP50, r.ackP50, r.ackP90, r.falseAckShort]);
  const byFigures = new Map<string, LabRow>();
  for (const r of [...rows].sort((a, b) => DETECTOR_RANK[a.detector] - DETECTOR_RANK[b.detector])) {
    const key = figures(r);
    const kept = byFigures.get(key);
    if (kept) kept.ties = (kept.ties ?? 0) + 1;
    else byFigures.set(key, { ...r, ties: 0 });
  }
  return [...byFigures.values()];
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
const ms = (x: number) => (Number.isNaN(x) ? '   —' : String(Math.round(x)).padStart(4));

export function settingLabel(r: TurnSetting): string {
  const max = r.detector === 'none' ? '   —' : String(r.maxDelayMs).padStart(4);
  return `${String(r.minSilenceMs).padStart(3)} ${String(r.minDelayMs).padStart(3)} ${max}  ${r.detector.padEnd(10)}`;
}

export function rowTable(rows: readonly LabRow[]): string {
  const head =
    'sil min  max  detector   | false end ≤700 clear≤700   all  n clear | commit p50  p90 | over: n  p50  p90 | ack false ≤700 | ack p50 p90 early | ko fe≤700  p50 | en fe≤700  p50 | ties';
  const lines = rows.map(
    (r) =>
      `${settingLabel(r)} |        ${pct(r.falseEndShort)}    ${pct(r.falseEndClearShort)} ${pct(r.falseEndAll)}     ${String(r.clearFalseEnds).padStart(3)} |       ${ms(r.commitP50)} ${ms(r.commitP90)} |    ${String(r.turnsJudgedOver).padStart(3)} ${ms(r.commitOverP50)} ${ms(r.commitOverP90)} |         ${pct(r.falseAckShort)} |    ${ms(r.ackP50)} ${ms(r.ackP90)} ${pct(r.ackEarlyShare)} |   ${pct(r.byLanguage.ko.falseEndShort)} ${ms(r.byLanguage.ko.commitP50)} |   ${pct(r.byLanguage.en.falseEndShort)} ${ms(r.byLanguage.en.commitP50)} | ${r.ties ? `+${r.ties}` : ''}`,
  );
  return [head, ...lines].join('\n');
}

/** Grid rows where maxDelay cannot matter (no detector) appear once. */
export function distinctRows(rows: readonly LabRow[]): LabRow[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = r.detector === 'none' ? `${r.minSilenceMs}/${r.minDelayMs}/none` : `${r.minSilenceMs}/${r.minDelayMs}/${r.maxDelayMs}/${r.detector}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
