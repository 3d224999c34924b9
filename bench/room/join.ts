/**
 * Joins the participant's turns with the worker's `turn latency` lines. Both processes run on
 * this machine: a line's stamps are ms from its zero (`turnDecided`), and `atEpochMs` puts that
 * zero on the wall clock the participant timestamps with, so every stage can be expressed as ms
 * after the caller's last voiced sample.
 *
 * The key is the end of the caller's speech as the worker saw it (its `callerVoiceArrived`, less
 * the input leg of its `path`): it falls between the caller starting to speak and the first
 * agent audio they hear. Not the line's zero: the early acknowledgement plays before the turn is
 * decided, so the decision comes after the caller's first sound. A turn takes the line whose end
 * of speech is nearest its last voiced sample (a split utterance makes two); a line is used once.
 * A barge-in's own follow-up turn falls after that window and is not taken.
 */
import type { TurnSpec } from './plan.js';
import { type AckHeard, contentOnEar } from './pitch.js';
import type { TurnResult } from './turn.js';

/** The stages reported, in the order they happen; `received` is the participant's own stamp. */
export const STAGE_KEYS = [
  'userStoppedSpeaking',
  'sttFinal',
  // Preemptive generation sends the request at the final transcript, before the turn is decided.
  'llmRequest',
  'turnDecided',
  // The early acknowledgement may play before the turn is decided.
  'ackPlaybackStarted',
  'llmFirstToken',
  'ttsFirstChunk',
  'ttsFirstByte',
  'ttsFirstFrame',
  'playbackStarted',
  'soundReceived',
  'received',
] as const;
export type StageKey = (typeof STAGE_KEYS)[number];

export const STAGE_LABELS: Record<StageKey, string> = {
  userStoppedSpeaking: 'end of speech detected (VAD)',
  sttFinal: 'STT final transcript',
  turnDecided: 'end of turn decided',
  llmRequest: 'LLM request sent',
  llmFirstToken: 'LLM first token',
  ttsFirstChunk: 'first chunk to TTS',
  ttsFirstByte: 'TTS first byte',
  ttsFirstFrame: 'TTS first frame',
  ackPlaybackStarted: 'ack first frame published (worker)',
  playbackStarted: 'reply first frame published (worker)',
  soundReceived: 'first sound received (caller)',
  received: 'first content received (caller)',
};

export interface LiveKitMetrics {
  endOfUtteranceDelayMs?: number;
  transcriptionDelayMs?: number;
  llmTtftMs?: number;
  ttsTtfbMs?: number;
}

export interface JoinedTurn extends TurnResult {
  /** Each stage, ms after the last voiced sample (absent when not observed). */
  stages: Partial<Record<StageKey, number>>;
  speechId?: string;
  interrupted?: boolean;
  livekit?: LiveKitMetrics;
  /** Why no worker line could be joined (the turn's totals still count). */
  logMiss?: string;
  /** The caller's ear: first agent audio (acknowledgement or reply), and the reply's own (bench/room/pitch.ts). */
  firstSoundMs?: number;
  firstContentMs?: number;
  /** Why the ear could not tell the reply's first audio. */
  contentMiss?: string;
  /** The worker's own figures for the turn, on the caller's clock (its line's `firstSoundMs`, `firstContentMs`). */
  worker?: { firstSoundMs?: number; firstContentMs?: number; ack?: string };
}

/** The worker's estimate of when the caller stopped speaking (epoch ms), or undefined. */
export function workerSpeechEnd(line: LogLine): number | undefined {
  const at = line.atEpochMs;
  const stamps = line.stamps as Record<string, number> | undefined;
  const arrived = stamps?.callerVoiceArrived ?? stamps?.vadEndOfSpeech ?? stamps?.userStoppedSpeaking;
  if (typeof at !== 'number' || typeof arrived !== 'number') return undefined;
  const inputMs = (line.path as { inputMs?: number } | undefined)?.inputMs;
  return at + arrived - (stamps?.callerVoiceArrived !== undefined && typeof inputMs === 'number' ? inputMs : 0);
}

type LogLine = Record<string, unknown>;

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function joinTurns(specs: readonly TurnSpec[], results: readonly TurnResult[], logs: Record<string, LogLine[]>): JoinedTurn[] {
  const used = new Set<LogLine>();
  const byId = new Map(results.map((r) => [r.id, r]));
  return specs.map((spec) => {
    const result: TurnResult = byId.get(spec.id) ?? {
      id: spec.id,
      strategy: spec.strategy,
      kind: spec.kind,
      scenario: spec.scenario,
      language: spec.language,
      ok: false,
      error: 'never ran (the driver stopped first)',
      micStalls: 0,
      maxReadGapMs: 0,
    };
    const joined: JoinedTurn = { ...result, stages: {} };
    const { firstVoicedAt, lastVoicedAt } = result;
    if (firstVoicedAt === undefined || lastVoicedAt === undefined) return joined;
    if (result.callerWaitMs !== undefined) joined.firstSoundMs = result.callerWaitMs;
    const until = result.firstAudioAt ?? lastVoicedAt + 20_000;
    const line = (logs[spec.strategy] ?? [])
      .map((l) => ({ l, end: workerSpeechEnd(l) }))
      .filter((c): c is { l: LogLine; end: number } => !used.has(c.l) && c.end !== undefined && c.end >= firstVoicedAt && c.end <= until)
      .sort((a, b) => Math.abs(a.end - lastVoicedAt) - Math.abs(b.end - lastVoicedAt))[0]?.l;
    if (!line) {
      joined.logMiss = "no turn latency line put the caller's end of speech between their first voiced sample and the first agent audio";
      return joined;
    }
    used.add(line);
    const zero = line.atEpochMs as number;
    const stamps = (line.stamps ?? {}) as Record<string, number>;
    for (const key of STAGE_KEYS) {
      if (key === 'received' || key === 'soundReceived') continue;
      if (typeof stamps[key] === 'number') joined.stages[key] = zero + stamps[key] - lastVoicedAt;
    }
    const ack = line.ack as { outcome?: string; durationMs?: number } | undefined;
    joined.worker = { firstSoundMs: num(line.firstSoundMs), firstContentMs: num(line.firstContentMs), ack: ack?.outcome };
    const heard: AckHeard = { played: ack?.outcome === 'played', durationMs: ack?.durationMs };
    const content = result.heard && result.replyTones ? contentOnEar(result.heard, result.replyTones, heard) : { why: 'the caller recorded no tones' };
    if ('at' in content) joined.firstContentMs = content.at - lastVoicedAt;
    else joined.contentMiss = content.why;
    if (joined.firstSoundMs !== undefined) joined.stages.soundReceived = joined.firstSoundMs;
    if (joined.firstContentMs !== undefined) joined.stages.received = joined.firstContentMs;
    joined.speechId = line.speechId as string | undefined;
    joined.interrupted = line.interrupted as boolean | undefined;
    joined.livekit = (line.livekit ?? {}) as LiveKitMetrics;
    return joined;
  });
}

/** Below this share of measured turns joined with a worker line, the run's stage figures are not worth printing. */
export const MIN_JOINED_SHARE = 0.75;

/**
 * What is wrong with a join, per strategy: no `turn latency` line read at all, or fewer than
 * {@link MIN_JOINED_SHARE} of the turns that produced a caller figure joined with one. Empty when
 * the join is sound. The bench stops on any (a table of "-" hides a broken join).
 */
export function joinProblems(turns: readonly JoinedTurn[], logs: Record<string, LogLine[]>): string[] {
  const problems: string[] = [];
  for (const strategy of new Set(turns.map((t) => t.strategy))) {
    const measured = turns.filter((t) => t.strategy === strategy && t.kind !== 'warmup' && t.firstVoicedAt !== undefined && t.firstAudioAt !== undefined);
    if (measured.length === 0) continue;
    const lines = logs[strategy] ?? [];
    if (lines.length === 0) {
      problems.push(`${strategy}: the worker logged no "turn latency" line (is the log file the worker's, and the message still "turn latency"?)`);
      continue;
    }
    const joined = measured.filter((t) => t.logMiss === undefined).length;
    if (joined < MIN_JOINED_SHARE * measured.length) {
      const ends = lines.map(workerSpeechEnd).filter((v): v is number => v !== undefined);
      const span = (values: number[]) => (values.length ? `${new Date(Math.min(...values)).toISOString()} – ${new Date(Math.max(...values)).toISOString()}` : 'none');
      problems.push(
        `${strategy}: ${joined} of ${measured.length} turns joined with a worker line; ${lines.length} lines read, ${ends.length} with an end of speech ` +
          `(${span(ends)}), the caller's turns spoke ${span(measured.map((t) => t.lastVoicedAt!))}`,
      );
    }
  }
  return problems;
}
