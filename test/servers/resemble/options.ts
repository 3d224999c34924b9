/**
 * Knobs of the local Resemble WebSocket server (docs/providers.md A.13). Everything the real service
 * leaves UNCONFIRMED is an option here, so tests can pin the behaviour they rely on.
 */
import { RESEMBLE } from '@firstword/agents-plugin-tts/providers';
import type { BurstPattern } from './pacing.js';

/** A fault injected into one request, chosen by `ResembleServerOptions.fault`. */
export interface ResembleFault {
  /**
   * `reject`: the request is refused with an error frame the moment it arrives (as the service
   * refuses a request it cannot take: before the requests queued ahead of it, with no audio);
   * `error-frame`: an error instead of the rest of the audio, once the request is being answered.
   */
  kind: 'reject' | 'error-frame' | 'close-mid-request' | 'terminate-mid-request' | 'no-audio-end' | 'stall';
  /**
   * Audio bytes (WAV header included, when one is sent) delivered before the fault strikes; a frame
   * straddling the point is cut there. Capped at the request's audio length, so `Infinity` means
   * "after all audio, before `audio_end`". Honoured by every kind but `reject`.
   * @defaultValue 0
   */
  afterBytes?: number;
  /** error-frame and reject; `null` leaves `status_code` out. @defaultValue 500 (reject: 400) */
  statusCode?: number | null;
  /** error-frame and reject. @defaultValue 'ServerError' (reject: 'BadJSON') */
  errorName?: string;
  /** error-frame and reject. @defaultValue 'Injected server fault' */
  message?: string;
  /**
   * error-frame and reject: whether the frame carries the request's `request_id` (the documented
   * `BadJSON` example has none). @defaultValue true
   */
  withRequestId?: boolean;
  /** stall only: pause length, after which the request resumes and ends normally. @defaultValue Infinity (never resumes) */
  stallMs?: number;
  /** close-mid-request only: close code of the (normal, handshaked) close. @defaultValue 1011 */
  closeCode?: number;
}

/** A request that passed validation and was queued for synthesis. */
export interface ReceivedRequest {
  connectionId: number;
  /** The id echoed on the wire: the client's numeric `request_id`, or the per-connection counter. */
  requestId: number;
  /** The JSON object exactly as the client sent it (unknown fields included). */
  payload: Record<string, unknown>;
  /** `performance.now()` when the frame arrived. */
  receivedAt: number;
}

/** A request answered with a validation error instead of audio (not in `received`). */
export interface RejectedRequest {
  connectionId: number;
  /** Undefined when the request could not be tied to an id (e.g. unparsable JSON). */
  requestId: number | undefined;
  /** Parsed JSON, or the raw text/bytes when parsing failed. */
  payload: unknown;
  errorName: string;
  receivedAt: number;
}

/** Error names the real service leaves UNCONFIRMED (docs/providers.md A.8). */
export interface ResembleErrorNames {
  /** `data` over `maxChars`. */
  textTooLong: string;
  /** `voice_uuid` not in `voices`. */
  unknownVoice: string;
  /** `output_format: "mp3"`, which this server cannot synthesize. */
  unsupportedFormat: string;
  /** Wrong type or value of `request_id`, `sample_rate`, `precision`, ... */
  invalidField: string;
  /** An upgrade over `maxConnectionsPerKey`. */
  tooManyConnections: string;
}

export interface ResembleServerOptions {
  /** Keys accepted in `Authorization: Bearer <key>`. @defaultValue ['test-key'] */
  apiKeys: string[];
  /**
   * How a bad/missing key is refused (UNCONFIRMED upstream): an HTTP 401 on the upgrade, or an
   * accepted upgrade followed by a JSON `ConnectionFailure` 401 error frame and a close (code 1000).
   * @defaultValue 'error-frame'
   */
  authFailure: 'http-401' | 'error-frame';
  /** Time from a request reaching the head of its queue to its first audio frame. @defaultValue 0 */
  firstByteDelayMs: number;
  /** Generation time / audio time; frame k leaves at firstByteDelayMs + rtf × audio already sent. 0 = as fast as possible. @defaultValue 0 */
  realTimeFactor: number;
  /** Audio length per character of `data` (code points, tags included). @defaultValue 60 */
  msPerChar: number;
  /** Audio bytes per frame; odd values allowed. @defaultValue 4096 */
  frameBytes: number;
  /** Probability that a frame is cut to a random odd length below `frameBytes` (seeded). @defaultValue 0 */
  oddFrameProbability: number;
  /**
   * Bursty delivery (rtf still applies): frames in groups of `framesPerBurst`, groups at least
   * `gapMs` apart; or `audioMs` of audio, then `gapMs` of nothing, and so on (Resemble is reported
   * to deliver in bursts with 300-450 ms gaps; docs/providers.md, part A).
   */
  burst?: BurstPattern;
  /** Stream all queued requests of a connection at once, frames interleaved. @defaultValue false (strict FIFO) */
  interleave: boolean;
  /** Add `audio_timestamps` (request-relative seconds) to JSON audio frames. @defaultValue false */
  timestamps: boolean;
  /** Never answer the client's close frame (Resemble does not ack); streaming for that socket stops. @defaultValue false */
  ignoreClientClose: boolean;
  /** Open sockets per key (documented: 20 parallel connections per API key); further upgrades are refused. @defaultValue 20 */
  maxConnectionsPerKey: number;
  /**
   * How an upgrade over `maxConnectionsPerKey` is refused (UNCONFIRMED upstream: the docs only say
   * back off and retry): an HTTP refusal with `status`, or an accepted upgrade followed by an error
   * frame (`errorNames.tooManyConnections`, `status`) and a close (code 1000).
   * @defaultValue { kind: 'http', status: 429 }
   */
  connectionLimitRefusal: { kind: 'http' | 'error-frame'; status: number };
  /** Close (1000, 'idle timeout') a socket with no request in flight and no message for this long. */
  idleCloseMs?: number;
  /** Limit on `data`, counting code points outside `<...>` tags. @defaultValue Resemble's limit (its descriptor's `maxRequestChars`) */
  maxChars: number;
  /** Seed of the PRNG behind odd frame cuts. @defaultValue 1 */
  seed: number;
  /** Decides a fault per valid request; `index` is its position in `received`. */
  fault?: (req: ReceivedRequest, index: number) => ResembleFault | undefined;

  // Extras beyond the shared contract; all optional.
  /** Allowed `voice_uuid`s; undefined accepts any. */
  voices?: string[];
  /** Error names for UNCONFIRMED cases. */
  errorNames?: Partial<ResembleErrorNames>;
  /** Rate used when a request omits `sample_rate` (UNCONFIRMED upstream). @defaultValue 48000 */
  defaultSampleRate?: number;
  /**
   * Synthesize at this rate, and echo it in each audio frame's `sample_rate` (and a WAV header's),
   * whatever rate the request asked for: a voice or model that streams at its own rate (UNCONFIRMED
   * upstream; the echo is what a client can check). Undefined serves the rate asked.
   */
  serveSampleRate?: number;
  /**
   * Models the voices can use. A request whose `model` is not listed (one without `model` counts
   * as `"default"`) is refused at once, as a field report saw it live (docs/providers.md A.8):
   * `DBCacheError` "<model> is not available for this voice", tied to the request, socket kept.
   * `[]` refuses every request, which is what that report saw on an account whose plan lacked
   * WebSocket model access. Undefined accepts any model.
   */
  availableModels?: string[];
  /** `status_code` of that refusal (the report gives none); `null` leaves it out. @defaultValue 500 */
  modelUnavailableStatus?: number | null;
  /**
   * false: the account's plan lacks WebSocket streaming, and every request is refused at once with
   * `Unauthorized` 401, tied to the request (the docs: such plans "receive Unauthorized
   * responses"). @defaultValue true
   */
  streamingPlan?: boolean;
}

export const RESEMBLE_SERVER_DEFAULTS: ResembleServerOptions = {
  apiKeys: ['test-key'],
  authFailure: 'error-frame',
  firstByteDelayMs: 0,
  realTimeFactor: 0,
  msPerChar: 60,
  frameBytes: 4096,
  oddFrameProbability: 0,
  interleave: false,
  timestamps: false,
  ignoreClientClose: false,
  maxConnectionsPerKey: 20,
  connectionLimitRefusal: { kind: 'http', status: 429 },
  maxChars: RESEMBLE.maxRequestChars,
  seed: 1,
};

export const DEFAULT_ERROR_NAMES: ResembleErrorNames = {
  textTooLong: 'TextTooLong',
  unknownVoice: 'InvalidVoice',
  unsupportedFormat: 'UnsupportedOutputFormat',
  invalidField: 'BadJSON',
  tooManyConnections: 'TooManyConnections',
};

/** The rates the real service documents (from Resemble's descriptor in the plugin). */
export const SUPPORTED_SAMPLE_RATES: readonly number[] = RESEMBLE.sampleRates;
export const PRECISIONS = ['PCM_16', 'PCM_24', 'PCM_32', 'MULAW'] as const;
export type Precision = (typeof PRECISIONS)[number];
/** Documented default precision (docs/providers.md A.3). */
export const DEFAULT_PRECISION: Precision = 'PCM_32';
