/**
 * One turn's latency budget: the stamps taken along the pipeline and the stages between them —
 * the one turn timeline of the project. The worker's log line, the Prometheus histograms, the
 * demo's report and waterfall and the benchmarks' room-less figures are all built from these
 * reports (by TurnBudget, src/latency/turn-budget.ts).
 *
 * Pure: building a report from stamps does no I/O. Stamps are `performance.now()` milliseconds;
 * a stamp the pipeline could not observe is absent, and so is every stage that needs it.
 */
import { toEpoch } from './clock.js';
import type { MediaPath } from './media-path.js';
import type { AckSignal } from './turn-signals.js';

export const STAMP_NAMES = [
  /**
   * The caller's last voiced frame reached the agent (in a room: its level at the page's voice
   * gate, src/latency/voice-arrival.ts). The end of speech the caller's clock starts from.
   */
  'callerVoiceArrived',
  /** The user stopped speaking (VAD/STT end of speech, as LiveKit's EOU metrics report it). */
  'userStoppedSpeaking',
  /** The VAD declared the end of speech (its silence after the last voiced frame had passed). */
  'vadEndOfSpeech',
  /** The final transcript of the turn arrived. */
  'sttFinal',
  /** The end of the user's turn was decided (end of speech + endpointing delay). */
  'turnDecided',
  /** The agent's `onUserTurnCompleted` ran: the reply is scheduled right after. */
  'userTurnCompleted',
  /** The LLM request of the reply was sent (earlier than the turn's end with preemptive generation). */
  'llmRequest',
  'llmFirstToken',
  /** The chunker released the reply's first chunk. */
  'ttsFirstChunk',
  /** The first chunk went out on the provider socket. */
  'ttsFirstSend',
  'ttsFirstByte',
  /** The TTS handed the session its first audio frame. */
  'ttsFirstFrame',
  /** The audio output started playing the reply (room-less outputs and rooms report it). */
  'playbackStarted',
  /** A cached acknowledgement was queued for this turn. */
  'ackQueued',
  'ackPlaybackStarted',
] as const;

export type StampName = (typeof STAMP_NAMES)[number];

/** What each stamp means, for tables and reports. */
export const STAMP_LABELS: Record<StampName, string> = {
  callerVoiceArrived: "caller's last voice reached the agent",
  userStoppedSpeaking: 'user stopped speaking (typed turns: reply requested)',
  vadEndOfSpeech: 'VAD end of speech',
  sttFinal: 'final transcript',
  turnDecided: 'end of turn decided',
  userTurnCompleted: 'agent turn hook ran',
  llmRequest: 'LLM request sent',
  llmFirstToken: 'LLM first token',
  ttsFirstChunk: 'first chunk released to TTS',
  ttsFirstSend: 'first TTS request sent',
  ttsFirstByte: 'TTS first byte',
  ttsFirstFrame: 'TTS first frame to session',
  playbackStarted: 'first audio played',
  ackQueued: 'acknowledgement queued',
  ackPlaybackStarted: 'acknowledgement played',
};
export type TurnStamps = Partial<Record<StampName, number>>;

/** Consecutive legs of the reply's path; a stage may be negative (preemptive LLM before turn end). */
export const STAGES = [
  { name: 'vad_end', from: 'callerVoiceArrived', to: 'vadEndOfSpeech' },
  { name: 'transcription', from: 'userStoppedSpeaking', to: 'sttFinal' },
  { name: 'vad_silence', from: 'userStoppedSpeaking', to: 'vadEndOfSpeech' },
  { name: 'end_of_turn', from: 'userStoppedSpeaking', to: 'turnDecided' },
  { name: 'turn_to_llm', from: 'turnDecided', to: 'llmRequest' },
  { name: 'llm_first_token', from: 'llmRequest', to: 'llmFirstToken' },
  { name: 'first_chunk', from: 'llmFirstToken', to: 'ttsFirstChunk' },
  { name: 'tts_first_byte', from: 'ttsFirstSend', to: 'ttsFirstByte' },
  { name: 'tts_first_frame', from: 'ttsFirstByte', to: 'ttsFirstFrame' },
  { name: 'playout', from: 'ttsFirstFrame', to: 'playbackStarted' },
  { name: 'ack_first_audio', from: 'turnDecided', to: 'ackPlaybackStarted' },
] as const satisfies readonly { name: string; from: StampName; to: StampName }[];

export type StageName = (typeof STAGES)[number]['name'];
export const STAGE_NAMES: readonly StageName[] = STAGES.map((stage) => stage.name);

/** What LiveKit's own metrics said about the same reply (matched by speech id). */
export interface LiveKitTurnMetrics {
  endOfUtteranceDelayMs?: number;
  transcriptionDelayMs?: number;
  llmTtftMs?: number;
  ttsTtfbMs?: number;
}

/** What the acknowledgement did for the turn, as its signal said (src/latency/turn-signals.ts). */
export type AckSummary = Pick<AckSignal, 'outcome' | 'reason' | 'phraseId' | 'language' | 'durationMs' | 'expectedWaitMs'>;

export interface TurnReport {
  /** 1-based turn number within the session. */
  turn: number;
  /** The reply's speech handle id (LiveKit's `speechId` in its own metrics and logs). */
  speechId?: string;
  /** The reply's stream on the TTS timeline (`streamId`), to join per-chunk detail with this report. */
  streamId?: string;
  /** The reply's LLM generation (`LlmGeneration.id` in the turn signals). */
  generationId?: number;
  /** Stamps relative to `turnDecided` (or the first stamp), ms; the absolute clock is in `at`. */
  stamps: TurnStamps;
  /** `performance.now()` of the stamps' zero, in the process that measured them. */
  at: number;
  /** The zero on the wall clock (epoch ms): joins this report with another process's clock. */
  atEpochMs: number;
  stages: Partial<Record<StageName, number>>;
  /**
   * End of user speech → first audio of the reply at the output (or out of the TTS when the
   * output does not report playback). The number the product exists to shrink. With a room's
   * `path`, on the caller's clock: from their last voiced sound to the reply reaching their ears.
   */
  firstContentMs?: number;
  /** Where `firstContentMs` was observed. */
  firstContentAt?: 'playback' | 'tts_frame';
  /** End of user speech → the acknowledgement's first audio. */
  ackFirstAudioMs?: number;
  /** End of user speech → whatever the listener heard first (ack or reply). */
  firstSoundMs?: number;
  /**
   * The room's legs added to the agent's own figures (src/latency/media-path.ts): `inputMs` before
   * the caller's voice reached the agent (spoken turns), `outputMs` after the agent's audio left.
   * Absent room-less, where the figures are the agent's own.
   */
  path?: MediaPath;
  ack?: AckSummary;
  livekit: LiveKitTurnMetrics;
  interrupted: boolean;
}

export interface TurnReportInput {
  turn: number;
  speechId?: string;
  streamId?: string;
  generationId?: number;
  stamps: TurnStamps;
  ack?: AckSummary;
  livekit?: LiveKitTurnMetrics;
  interrupted?: boolean;
  path?: MediaPath;
}

const round = (ms: number): number => Math.round(ms * 10) / 10;

function span(stamps: TurnStamps, from: StampName, to: StampName): number | undefined {
  const start = stamps[from];
  const end = stamps[to];
  return start === undefined || end === undefined ? undefined : round(end - start);
}

/** Stages and totals from raw stamps; stamps in the report are rebased on the turn's decision. */
export function buildTurnReport(input: TurnReportInput): TurnReport {
  const { stamps } = input;
  const stages: Partial<Record<StageName, number>> = {};
  for (const stage of STAGES) {
    const ms = span(stamps, stage.from, stage.to);
    if (ms !== undefined) stages[stage.name] = ms;
  }

  const replyAudio = stamps.playbackStarted ?? stamps.ttsFirstFrame;
  const firstContentAt = stamps.playbackStarted !== undefined ? 'playback' : stamps.ttsFirstFrame !== undefined ? 'tts_frame' : undefined;
  // The caller's clock: their last voice left them `inputMs` before it reached the agent (seen
  // arriving, or else where the VAD put the end of speech), and the agent's audio reaches them
  // `outputMs` after it left. A typed turn starts at its request: no audio leg before it.
  const { path } = input;
  const spoken = stamps.callerVoiceArrived !== undefined || stamps.vadEndOfSpeech !== undefined;
  const agentSpeechEnd = stamps.callerVoiceArrived ?? stamps.userStoppedSpeaking;
  const speechEnd = agentSpeechEnd === undefined ? undefined : agentSpeechEnd - (spoken ? (path?.inputMs ?? 0) : 0);
  const since = (at: number | undefined) => (speechEnd === undefined || at === undefined ? undefined : round(at + (path?.outputMs ?? 0) - speechEnd));
  const heard = [replyAudio, stamps.ackPlaybackStarted].filter((t): t is number => t !== undefined);

  const present = Object.values(stamps).filter((t): t is number => t !== undefined);
  const zero = stamps.turnDecided ?? stamps.userTurnCompleted ?? (present.length > 0 ? Math.min(...present) : 0);
  const relative: TurnStamps = {};
  for (const name of STAMP_NAMES) {
    const at = stamps[name];
    if (at !== undefined) relative[name] = round(at - zero);
  }

  return {
    turn: input.turn,
    speechId: input.speechId,
    streamId: input.streamId,
    generationId: input.generationId,
    stamps: relative,
    at: zero,
    atEpochMs: round(toEpoch(zero)),
    stages,
    firstContentMs: since(replyAudio),
    firstContentAt,
    ackFirstAudioMs: since(stamps.ackPlaybackStarted),
    firstSoundMs: heard.length > 0 ? since(Math.min(...heard)) : undefined,
    ...(path ? { path } : {}),
    ack: input.ack,
    livekit: input.livekit ?? {},
    interrupted: input.interrupted ?? false,
  };
}
