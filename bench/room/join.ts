/**
 * Joins the participant's turns with the worker's `turn latency` lines. Both processes run on
 * this machine: a line's stamps are ms from its zero (`turnDecided`), and `atEpochMs` puts that
 * zero on the wall clock the participant timestamps with, so every stage can be expressed as ms
 * after the caller's last voiced sample.
 *
 * A turn's line is the one whose end of turn falls between the caller starting to speak and the
 * first agent audio received (the latest, should a split utterance have made two); a line is
 * used once. A barge-in's own follow-up turn falls after that window and is not taken.
 */
import type { TurnSpec } from './plan.js';
import type { TurnResult } from './turn.js';

/** The stages reported, in the order they happen; `received` is the participant's own stamp. */
export const STAGE_KEYS = [
  'userStoppedSpeaking',
  'sttFinal',
  // Preemptive generation sends the request at the final transcript, before the turn is decided.
  'llmRequest',
  'turnDecided',
  'llmFirstToken',
  'ttsFirstChunk',
  'ttsFirstByte',
  'ttsFirstFrame',
  'playbackStarted',
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
  playbackStarted: 'first frame published (worker)',
  received: 'first frame received (caller)',
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
}

type LogLine = Record<string, unknown>;

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
    const until = result.firstAudioAt ?? lastVoicedAt + 20_000;
    const candidates = (logs[spec.strategy] ?? []).filter((line) => {
      const at = line.atEpochMs;
      return !used.has(line) && typeof at === 'number' && at >= firstVoicedAt && at <= until;
    });
    const line = candidates.at(-1);
    if (!line) {
      joined.logMiss = 'no turn latency line ended its turn in this window';
      return joined;
    }
    used.add(line);
    const zero = line.atEpochMs as number;
    const stamps = (line.stamps ?? {}) as Record<string, number>;
    for (const key of STAGE_KEYS) {
      if (key === 'received') continue;
      if (typeof stamps[key] === 'number') joined.stages[key] = zero + stamps[key] - lastVoicedAt;
    }
    if (result.callerWaitMs !== undefined) joined.stages.received = result.callerWaitMs;
    joined.speechId = line.speechId as string | undefined;
    joined.interrupted = line.interrupted as boolean | undefined;
    joined.livekit = (line.livekit ?? {}) as LiveKitMetrics;
    return joined;
  });
}
