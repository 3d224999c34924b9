/** What bench:turn reports per setting, from the spoken turns it ran (src/spoken). */
import type { SpokenTurn } from '../../src/spoken/spoken-session.js';
import { mean, percentile } from '../playout.js';

export interface SettingFigures {
  name: string;
  /** The STT profile (bench/turn/stt-profiles.ts). */
  stt: string;
  firstSoundP50Ms?: number;
  firstSoundP90Ms?: number;
  firstContentP50Ms?: number;
  firstContentP90Ms?: number;
  /** Pauses of at most 700 ms where the agent began to speak, over those pauses. */
  falseEndRate: number;
  pauses: number;
  /** The same over the 1,000 ms pauses (beyond the target, reported). */
  falseEndRateLongPauses: number;
  longPauses: number;
  /** Share of answered turns whose reply came from a draft started before the final transcript. */
  draftsKept: number;
  draftsDiscardedPerTurn: number;
  cpuMsPerTurn: number;
  /** Caller's end of speech → the reply's audio ready (played or held behind the ack). */
  replyReadyP50Ms?: number;
  /** First content − max(reply ready, ack end): what the ack held the content back. */
  contentHeldP50Ms?: number;
  contentHeldP90Ms?: number;
  turns: number;
  /** Turns the agent never answered after the caller's end of speech. */
  unanswered: number;
  acksPlayed: number;
}

/** p-th percentile to 0.1 ms; undefined when there is nothing to measure. */
function percentileOf(values: readonly number[], p: number): number | undefined {
  return values.length === 0 ? undefined : Math.round(percentile(values, p) * 10) / 10;
}

/** The pauses of a turn, each with whether an agent sound began in it (before the next piece ended). */
export function pauseOutcomes(turn: SpokenTurn, pauseMs: readonly number[]): Array<{ pauseMs: number; falseEnd: boolean }> {
  const pieces = turn.utterance.pieces;
  const starts = turn.segments.map((s) => s.startedAt).filter((t): t is number => t !== undefined);
  return pieces.slice(0, -1).map((piece, i) => {
    const until = pieces[i + 1]!.lastVoicedAt;
    return { pauseMs: pauseMs[i] ?? 0, falseEnd: starts.some((t) => t >= piece.lastVoicedAt && t < until) };
  });
}

export function settingFigures(name: string, stt: string, turns: ReadonlyArray<{ turn: SpokenTurn; pauseMs: readonly number[] }>): SettingFigures {
  const pick = (key: 'firstSoundMs' | 'firstContentMs' | 'replyReadyMs' | 'contentHeldMs') => turns.map(({ turn }) => turn[key]).filter((v): v is number => v !== undefined);
  const answered = turns.filter(({ turn }) => turn.firstContentMs !== undefined);
  const pauses = turns.flatMap(({ turn, pauseMs }) => pauseOutcomes(turn, pauseMs));
  const short = pauses.filter((p) => p.pauseMs <= 700);
  const long = pauses.filter((p) => p.pauseMs > 700);
  const rate = (list: typeof pauses) => (list.length === 0 ? 0 : list.filter((p) => p.falseEnd).length / list.length);
  const average = (values: number[]) => (values.length === 0 ? 0 : Math.round(mean(values) * 100) / 100);
  return {
    name,
    stt,
    firstSoundP50Ms: percentileOf(pick('firstSoundMs'), 50),
    firstSoundP90Ms: percentileOf(pick('firstSoundMs'), 90),
    firstContentP50Ms: percentileOf(pick('firstContentMs'), 50),
    firstContentP90Ms: percentileOf(pick('firstContentMs'), 90),
    falseEndRate: Math.round(rate(short) * 1000) / 1000,
    pauses: short.length,
    falseEndRateLongPauses: Math.round(rate(long) * 1000) / 1000,
    longPauses: long.length,
    draftsKept: answered.length === 0 ? 0 : Math.round((answered.filter(({ turn }) => turn.draftKept).length / answered.length) * 1000) / 1000,
    draftsDiscardedPerTurn: average(turns.map(({ turn }) => turn.draftsDiscarded)),
    cpuMsPerTurn: average(turns.map(({ turn }) => turn.cpuMs)),
    replyReadyP50Ms: percentileOf(pick('replyReadyMs'), 50),
    contentHeldP50Ms: percentileOf(pick('contentHeldMs'), 50),
    contentHeldP90Ms: percentileOf(pick('contentHeldMs'), 90),
    turns: turns.length,
    unanswered: turns.filter(({ turn }) => turn.firstContentMs === undefined).length,
    acksPlayed: turns.filter(({ turn }) => turn.acks.some((a) => a.outcome === 'played' && a.playback?.startedAt !== undefined && a.playback.startedAt >= turn.endOfSpeechAt - 1)).length,
  };
}
