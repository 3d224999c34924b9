/**
 * Knobs of the local Cartesia server (docs/providers.md B.12). Behaviour the real service leaves
 * UNCONFIRMED is an option here, so a test can pin what it relies on.
 */
import type { ErrorSpec } from './protocol.js';

/** A fault injected into one input (transcript piece) of a context, chosen by `CartesiaServerOptions.fault`. */
export interface CartesiaFault {
  /**
   * - `error-event`: an `error` event (done:true) for the context; the context ends, no `done`.
   * - `terminate`: the socket is destroyed without a close frame (the client sees 1006).
   * - `no-done`: the piece plays normally, but the context never sends its final `done`.
   * - `stall`: generation pauses for `stallMs`, then resumes.
   */
  kind: 'error-event' | 'terminate' | 'no-done' | 'stall';
  /**
   * Audio bytes of this piece delivered before the fault strikes; a chunk straddling the point is
   * cut there. Capped at the piece's length, so `Infinity` means "after all of this piece's audio".
   * Ignored by `no-done`. @defaultValue 0
   */
  afterBytes?: number;
  /** error-event only. @defaultValue 500 */
  statusCode?: number;
  /** error-event only. @defaultValue 'internal_server_error' */
  errorCode?: string;
  /** error-event only. @defaultValue 'Internal server error' */
  title?: string;
  /** error-event only. @defaultValue 'Injected server fault' */
  message?: string;
  /** stall only. @defaultValue Infinity (never resumes; cancel or close still stop it) */
  stallMs?: number;
}

/** What a fault decision gets to look at. `connectionId` is 0 for `/tts/bytes` requests. */
export interface CartesiaFaultContext {
  connectionId: number;
  contextId: string;
  /** The transcript piece about to be generated, exactly as sent. */
  transcript: string;
  /** Position of the piece within its context (0 = first input). */
  index: number;
}

export interface CartesiaServerOptions {
  /** Accepted as `X-API-Key`, `Authorization: Bearer`, `?api_key=` or `?access_token=`. @defaultValue ['test-key'] */
  apiKeys: string[];
  /** Model latency before each piece's first chunk. @defaultValue 0 */
  firstByteDelayMs: number;
  /** Generation time / audio time; 0 = as fast as possible (still yielding between chunks). @defaultValue 0 */
  realTimeFactor: number;
  /** Audio length per character (code point) of a piece. @defaultValue 60 */
  msPerChar: number;
  /**
   * `tagged`: every sample tells which text produced it (audio-tag.ts). `audible`: a speech-band
   * tone per voiced piece, for audio that crosses a lossy codec (a real LiveKit room); the server
   * hands out `AUDIBLE_TONES_HZ` in turn and logs each piece's tone (`voiced`). @defaultValue 'tagged'
   */
  audio: 'tagged' | 'audible';
  /** Encoded audio bytes per chunk event; odd values allowed. @defaultValue 4096 */
  frameBytes: number;
  /** Up to this many extra ms before each chunk (seeded PRNG). @defaultValue 0 */
  jitterMs: number;
  /** Accepted `model_id`s; anything else is `model_not_found`. */
  models: string[];
  /** Families whose dated snapshots (`<family>-YYYY-MM-DD`, e.g. `sonic-3.5-2026-05-04`) are accepted too. */
  datedModelFamilies: string[];
  /** `model_id`s answered with `model_sunsetted`. */
  sunsettedModels: string[];
  /** Accepted voice ids; undefined accepts any id (embeddings are never checked against it). */
  voices?: string[];
  /** Active contexts per key across sockets (and `/tts/bytes` requests); over it → 429 `concurrency_limited`. @defaultValue 15 */
  concurrencyLimit: number;
  /** Open sockets per key; further upgrades get HTTP 429. @defaultValue 150 */
  maxConnections: number;
  /** With `max_buffer_delay_ms: 0`, send an unsolicited `flush_done` after each input's audio (2026 behaviour). @defaultValue true */
  flushDoneAfterEachInput: boolean;
  /** A `continue:true` context idle this long after its last audio/input gets an early `done` (it still accepts input). */
  earlyDoneIdleMs?: number;
  /** Chunks of the piece being generated that still go out after a cancel. @defaultValue 1 */
  lateChunksAfterCancel: number;
  /** Send `done` for a cancelled context (after its late chunks). @defaultValue false */
  doneAfterCancel: boolean;
  /**
   * A context expires this long after its last audio went out, as documented ("1 second after the
   * last audio output is streamed out"): an open (`continue:true`) context that has nothing left to
   * generate as much as a finished one. Until then a finished context still counts toward
   * concurrency and refuses input; once expired, its id is refused with `expiredContextError`.
   * @defaultValue 1000
   */
  contextExpiryMs: number;
  /**
   * The answer to input on a context id that no longer exists (expired, cancelled, or finished and
   * expired): a per-context error event (`context_id` set, `done:true`). Its live wording is
   * UNCONFIRMED, so tests vary it; `errorCode: null` sends `error_code: null`.
   * @defaultValue 400 `context_closed`, "Context has closed"
   */
  expiredContextError?: Partial<ErrorSpec>;
  /** `false`: no context ever gets `done` (audio, timestamps and `flush_done` still go out). @defaultValue true */
  sendsDone: boolean;
  /** Close a socket with no traffic for this long: code 1000, reason `connection idle timeout`. @defaultValue 300000 */
  idleCloseMs: number;
  /** Seed of the jitter PRNG. @defaultValue 1 */
  seed: number;
  /** Decides a fault per piece, just before it starts generating. */
  fault?: (ctx: CartesiaFaultContext) => CartesiaFault | undefined;
}

export const CARTESIA_SERVER_DEFAULTS: CartesiaServerOptions = {
  apiKeys: ['test-key'],
  firstByteDelayMs: 0,
  realTimeFactor: 0,
  msPerChar: 60,
  audio: 'tagged',
  frameBytes: 4096,
  jitterMs: 0,
  models: [
    'sonic-3',
    'sonic-3.5',
    'sonic-latest',
    'sonic-2',
    'sonic-turbo',
    'sonic-3-2025-10-27',
    'sonic-3-2026-01-12',
    'sonic-3.5-2026-05-04',
  ],
  datedModelFamilies: ['sonic-3', 'sonic-3.5'],
  sunsettedModels: [
    'sonic',
    'sonic-english',
    'sonic-multilingual',
    'sonic-2-2025-03-07',
    'sonic-turbo-2025-03-07',
  ],
  concurrencyLimit: 15,
  maxConnections: 150,
  flushDoneAfterEachInput: true,
  lateChunksAfterCancel: 1,
  doneAfterCancel: false,
  contextExpiryMs: 1000,
  sendsDone: true,
  idleCloseMs: 300_000,
  seed: 1,
};

/** A client message as the server parsed it (generation, cancel, or anything else that was a JSON object). */
export interface ReceivedMessage {
  connectionId: number;
  message: Record<string, unknown>;
  /** `Date.now()` when the frame arrived. */
  receivedAt: number;
}

/** One `POST /tts/bytes` request. */
export interface ReceivedHttpRequest {
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

/** One piece the audible voice spoke, and the tone it got (`contextId` '' for `/tts/bytes`). */
/** A context that generated all its audio, and when (epoch ms). */
export interface FinishedContext {
  contextId: string;
  at: number;
}

export interface VoicedPiece {
  connectionId: number;
  contextId: string;
  transcript: string;
  hz: number;
}
