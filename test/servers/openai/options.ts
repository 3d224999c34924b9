/**
 * Knobs and records of the local OpenAI server. Behaviour of the real service that the installed
 * clients do not pin down is an option here (marked UNCONFIRMED), so a test states what it relies on.
 */
import { z } from 'zod';
import { DEFAULT_REPLIES, type DefaultReplies, type ScriptEntry } from './script.js';

export interface OpenAIServerOptions {
  /** Accepted `Authorization: Bearer` keys, on HTTP and on the realtime upgrade. @defaultValue ['test-key'] */
  apiKeys: string[];
  /** Request arrival → first token of a plain reply. @defaultValue 300 */
  firstTokenDelayMs: number;
  /** Pace of a plain reply's tokens after the first. @defaultValue 40 */
  tokensPerSecond: number;
  /** First matching entry wins; tested against the last user message. @defaultValue [] */
  script: ScriptEntry[];
  defaultReplies: DefaultReplies;
  /** Model ids listed by `GET /v1/models` (the plugin's prewarm). Any model id is accepted on chat. */
  models: string[];
  /**
   * Add an `obfuscation` padding string to each content chunk unless the request sets
   * `stream_options.include_obfuscation: false`. The openai 6.49 types confirm the field is on by
   * default; its exact placement (top level of the chunk) is UNCONFIRMED. @defaultValue true
   */
  obfuscation: boolean;
  /** Transcript of committed speech when the queue is empty (a live model's silence is ''). @defaultValue 'Hello.' */
  defaultTranscript: string;
  /** Commit → `completed` (deltas are spread before it). @defaultValue 150 */
  transcriptionDelayMs: number;
  /** `…transcription.delta` events before `completed` (0 = none). @defaultValue 2 */
  transcriptDeltas: number;
  /**
   * Add `languages: [{code}]` (ko/en by Hangul) to `completed` and the HTTP answer. The plugin
   * reads it (stt.ts:153, :917); whether gpt-4o-transcribe sends it is UNCONFIRMED. @defaultValue false
   */
  reportLanguage: boolean;
  /** A 10 ms window at or above this RMS (full scale = 1) is speech for server_vad. @defaultValue 0.02 */
  vadRmsThreshold: number;
  /** Shortest buffer `input_audio_buffer.commit` accepts (UNCONFIRMED: OpenAI documents 100 ms). @defaultValue 100 */
  minCommitMs: number;
  /**
   * Turn detection of a transcription session before any `session.update` sets it
   * (UNCONFIRMED; the plugin always sends `turn_detection`). @defaultValue 'server_vad'
   */
  initialTurnDetection: 'server_vad' | 'none';
  /**
   * A bad key on the realtime upgrade: `'http-401'` refuses it with the JSON error body;
   * `'error-event'` accepts, sends an `error` event with code `invalid_api_key`, then closes
   * 1008 (UNCONFIRMED which one OpenAI does). @defaultValue 'http-401'
   */
  realtimeAuthFailure: 'http-401' | 'error-event';
  /** Send `session.created` right after the upgrade (UNCONFIRMED shape). @defaultValue true */
  sendSessionCreated: boolean;
  /**
   * Live models: a word's audio arrived → its `…transcription.delta` (UNCONFIRMED: OpenAI
   * publishes no figure; gpt-realtime-whisper's `delay` tunes it). @defaultValue 300
   */
  deltaLagMs: number;
  /**
   * Live models: `input_audio_buffer.commit` → `completed` (UNCONFIRMED: no published figure;
   * Pipecat's published STT figures give OpenAI's realtime final a p99 of ~1.66 s from the end of
   * speech, so 150 is the fast end). @defaultValue 150
   */
  finalAfterCommitMs: number;
  /** Each delta and final of a live model comes up to this much later, uniformly, from `seed`. @defaultValue 0 */
  timingJitterMs: number;
  /** Seed of that jitter. @defaultValue 1 */
  seed: number;
  /**
   * Live models, a transcript queued as plain text: speech per character, to spread its words
   * (UNCONFIRMED, an estimate; the last word waits for the commit). @defaultValue 70
   */
  speechMsPerChar: number;
  /**
   * Which queued transcript a commit carries: `commit`, the next one per commit; `speech`, the
   * ones bound to the committed speech (what live models always do; lets a server_vad commit that
   * took in a short pause carry both pieces). @defaultValue 'commit'
   */
  bindTranscripts: 'commit' | 'speech';
}

/** Models with no server-side turn detection: they stream words while the speech arrives and finish at the client's commit. */
export const LIVE_TRANSCRIPTION_MODELS: readonly string[] = ['gpt-realtime-whisper', 'gpt-live-transcribe'];

export function isLiveModel(model: string | undefined): boolean {
  return model !== undefined && LIVE_TRANSCRIPTION_MODELS.some((live) => model.startsWith(live));
}

export const OPENAI_SERVER_DEFAULTS: OpenAIServerOptions = {
  apiKeys: ['test-key'],
  firstTokenDelayMs: 300,
  tokensPerSecond: 40,
  script: [],
  defaultReplies: DEFAULT_REPLIES,
  models: ['gpt-4.1', 'gpt-4.1-mini', 'gpt-4o', 'gpt-4o-mini', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe', 'gpt-realtime-whisper', 'gpt-live-transcribe', 'whisper-1'],
  obfuscation: true,
  defaultTranscript: 'Hello.',
  transcriptionDelayMs: 150,
  transcriptDeltas: 2,
  reportLanguage: false,
  vadRmsThreshold: 0.02,
  minCommitMs: 100,
  initialTurnDetection: 'server_vad',
  realtimeAuthFailure: 'http-401',
  sendSessionCreated: true,
  deltaLagMs: 300,
  finalAfterCommitMs: 150,
  timingJitterMs: 0,
  seed: 1,
  speechMsPerChar: 70,
  bindTranscripts: 'commit',
};

/** What `POST /_control/options` may change (numbers and flags; scripts have their own endpoint). */
export const controlOptionsSchema = z.strictObject({
  firstTokenDelayMs: z.number().finite().nonnegative().optional(),
  tokensPerSecond: z.number().finite().positive().optional(),
  transcriptionDelayMs: z.number().finite().nonnegative().optional(),
  transcriptDeltas: z.number().int().nonnegative().optional(),
  defaultTranscript: z.string().optional(),
  reportLanguage: z.boolean().optional(),
  vadRmsThreshold: z.number().finite().nonnegative().optional(),
  minCommitMs: z.number().finite().nonnegative().optional(),
  obfuscation: z.boolean().optional(),
  defaultReplies: z.strictObject({ ko: z.string(), en: z.string() }).optional(),
  deltaLagMs: z.number().finite().nonnegative().optional(),
  finalAfterCommitMs: z.number().finite().nonnegative().optional(),
  timingJitterMs: z.number().finite().nonnegative().optional(),
  seed: z.number().int().optional(),
  speechMsPerChar: z.number().finite().positive().optional(),
  bindTranscripts: z.enum(['commit', 'speech']).optional(),
});

/** Throws on values the server cannot run with (the in-process API's validation). */
export function assertOptions(options: OpenAIServerOptions): void {
  if (!(options.tokensPerSecond > 0) || !Number.isFinite(options.tokensPerSecond)) throw new Error('tokensPerSecond must be a positive number');
  if (!(options.firstTokenDelayMs >= 0)) throw new Error('firstTokenDelayMs must be >= 0');
  if (!(options.transcriptionDelayMs >= 0)) throw new Error('transcriptionDelayMs must be >= 0');
  for (const key of ['deltaLagMs', 'finalAfterCommitMs', 'timingJitterMs'] as const) {
    if (!(options[key] >= 0) || !Number.isFinite(options[key])) throw new Error(`${key} must be a finite number >= 0`);
  }
  if (!(options.speechMsPerChar > 0)) throw new Error('speechMsPerChar must be > 0');
}

/** One `POST /v1/chat/completions` that passed validation. */
export interface ChatRequestRecord {
  model: string;
  messages: { role: string; content?: unknown }[];
  stream: boolean;
  /** The text replies were matched against. */
  lastUserText: string;
  /** The reply's full text. */
  reply: string;
  /** Script entry used, -1 = default reply. */
  scriptIndex: number;
  /** `Date.now()` on arrival. */
  receivedAt: number;
  /** The client went away before the reply was complete. */
  aborted: boolean;
}

/** One committed stretch of audio (realtime) or one uploaded file (HTTP). */
export interface UtteranceRecord {
  source: 'server-vad' | 'commit' | 'http';
  /** Realtime connection id (0 for HTTP). */
  connectionId: number;
  itemId: string;
  /** Audio received for it, at its sample rate. */
  durationMs: number;
  /** Root mean square of its samples, full scale = 1. Silence is 0; speech is typically 0.03–0.3. */
  rms: number;
  transcript: string;
  receivedAt: number;
}

/** One realtime WebSocket. */
export interface RealtimeSessionRecord {
  connectionId: number;
  /** Query of the upgrade URL (`intent`, `model`, …). */
  query: Record<string, string>;
  /** Every valid `session.update` payload, as sent. */
  sessionUpdates: Record<string, unknown>[];
  /** Valid client events received, by type. */
  eventCounts: Record<string, number>;
  /** Client events answered with an `error` event. */
  errors: number;
  openedAt: number;
  closedAt?: number;
}

/** One `POST /v1/audio/transcriptions` that passed validation. */
export interface TranscriptionRequestRecord {
  model: string;
  language?: string;
  responseFormat: string;
  fileName: string;
  fileBytes: number;
  receivedAt: number;
}
