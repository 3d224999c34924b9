/**
 * Wire shapes of Cartesia server events and errors, selected by API version (docs/providers.md B.2, B.4).
 */
import { randomUUID } from 'node:crypto';

/** Versions are ISO dates; behaviour switches at these (string comparison is date order). */
const STRUCTURED_ERRORS_FROM = '2026-03-01';
const VOICE_STRING_FROM = '2026-08-14';
const EMBEDDINGS_REJECTED_FROM = '2026-03-01';
const LONG_BUFFER_DELAY_FROM = '2026-03-01';

const VERSION_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export function isWellFormedVersion(version: string): boolean {
  return VERSION_PATTERN.test(version) && !Number.isNaN(Date.parse(version));
}

/** Features that differ between API versions. */
export interface VersionFeatures {
  version: string;
  /** `title/message/error_code/request_id` errors instead of one `error: "Title: message"` string. */
  structuredErrors: boolean;
  /** `voice` may be a bare id string or `{id}` without `mode`. */
  voiceAsString: boolean;
  /** `{mode:'embedding'}` voices are refused. */
  embeddingsRejected: boolean;
  /** Range and default of `max_buffer_delay_ms`. */
  maxBufferDelayMs: { max: number; default: number };
}

export function featuresFor(version: string): VersionFeatures {
  const longBuffer = version >= LONG_BUFFER_DELAY_FROM;
  return {
    version,
    structuredErrors: version >= STRUCTURED_ERRORS_FROM,
    voiceAsString: version >= VOICE_STRING_FROM,
    embeddingsRejected: version >= EMBEDDINGS_REJECTED_FROM,
    maxBufferDelayMs: longBuffer ? { max: 5000, default: 3000 } : { max: 1000, default: 0 },
  };
}

/** An error before it is dressed in the shape its API version uses. */
export interface ErrorSpec {
  statusCode: number;
  /** `null` is sent as `error_code: null` (the docs allow it). */
  errorCode: string | null;
  title: string;
  message: string;
}

export const errors = {
  invalidRequest: (message: string): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'invalid_request',
    title: 'Invalid request',
    message,
  }),
  unsupportedOutputFormat: (message: string): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'unsupported_output_format',
    title: 'Unsupported output format',
    message,
  }),
  modelNotFound: (): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'model_not_found',
    title: 'Invalid model',
    message: 'The model is not valid, make sure it is a valid model ID.',
  }),
  modelSunsetted: (model: string): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'model_sunsetted',
    title: 'Model sunsetted',
    message: `The model ${model} is no longer served; use sonic-3.5 or a current dated snapshot.`,
  }),
  voiceNotFound: (): ErrorSpec => ({
    statusCode: 404,
    errorCode: 'voice_not_found',
    title: 'Voice not found',
    message: 'The voice is not valid, make sure it is a valid voice ID.',
  }),
  embeddingUnsupported: (): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'voice_embedding_unsupported',
    title: 'Invalid voice',
    message: 'Voice embeddings are not supported in this API version; use a voice id.',
  }),
  emptyFirstTranscript: (): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'transcript_empty',
    title: 'transcript empty or contains only punctuation',
    message: 'first transcript for WS is empty or contains only punctuation',
  }),
  emptyTranscript: (): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'transcript_empty',
    title: 'transcript empty or contains only punctuation',
    message: 'transcript is empty or contains only punctuation',
  }),
  contextClosed: (contextId: string): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'context_closed',
    title: 'Context has closed',
    message: `Context ${contextId} has already finished; use a new context_id.`,
  }),
  contextParamsChanged: (fields: string[]): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'context_params_changed',
    title: 'Context has closed',
    message: `Only transcript, continue and duration may change within a context (changed: ${fields.join(', ')}).`,
  }),
  concurrencyLimited: (limit: number): ErrorSpec => ({
    statusCode: 429,
    errorCode: 'concurrency_limited',
    title: 'Too many concurrent requests',
    message: `Your plan allows ${limit} concurrent generations; wait for one to finish.`,
  }),
  connectionLimited: (limit: number): ErrorSpec => ({
    statusCode: 429,
    errorCode: 'connection_limited',
    title: 'Too many connections',
    message: `At most ${limit} WebSocket connections are allowed per API key.`,
  }),
  unauthorized: (): ErrorSpec => ({
    statusCode: 401,
    errorCode: 'unauthorized',
    title: 'Unauthorized',
    message: 'Invalid or missing API key.',
  }),
  missingVersion: (): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'missing_version',
    title: 'Missing API version',
    message: 'Send a Cartesia-Version header or a cartesia_version query parameter.',
  }),
  invalidVersion: (): ErrorSpec => ({
    statusCode: 400,
    errorCode: 'invalid_version',
    title: 'Invalid API version',
    message: 'Cartesia-Version must be a date such as 2026-03-01.',
  }),
  notFound: (): ErrorSpec => ({
    statusCode: 404,
    errorCode: 'not_found',
    title: 'Not found',
    message: 'No such endpoint.',
  }),
  serverFault: (fault: {
    statusCode?: number;
    errorCode?: string;
    title?: string;
    message?: string;
  }): ErrorSpec => ({
    statusCode: fault.statusCode ?? 500,
    errorCode: fault.errorCode ?? 'internal_server_error',
    title: fault.title ?? 'Internal server error',
    message: fault.message ?? 'Injected server fault',
  }),
};

/** Body of an HTTP error (upgrade rejection or `/tts/bytes`): always the structured JSON (B.12.1). */
export function httpErrorBody(spec: ErrorSpec, requestId: string): Record<string, unknown> {
  return {
    error_code: spec.errorCode,
    title: spec.title,
    message: spec.message,
    request_id: requestId,
  };
}

/** An `error` event; connection-level errors leave `contextId` undefined. */
export function errorEvent(
  spec: ErrorSpec,
  features: VersionFeatures,
  contextId: string | undefined,
  connectionRequestId: string,
): Record<string, unknown> {
  const withContext = contextId === undefined ? {} : { context_id: contextId };
  if (!features.structuredErrors) {
    return {
      type: 'error',
      done: true,
      error: `${spec.title}: ${spec.message}`,
      status_code: spec.statusCode,
      ...withContext,
    };
  }
  return {
    type: 'error',
    done: true,
    status_code: spec.statusCode,
    error_code: spec.errorCode,
    title: spec.title,
    message: spec.message,
    request_id:
      contextId === undefined ? connectionRequestId : `${connectionRequestId}:${contextId}`,
    ...withContext,
  };
}

export function newRequestId(): string {
  return randomUUID();
}

const DATA_STATUS = 206;

export function chunkEvent(
  contextId: string,
  audio: Buffer,
  stepTimeMs: number,
  flushId: number | undefined,
): Record<string, unknown> {
  return {
    type: 'chunk',
    data: audio.toString('base64'),
    done: false,
    status_code: DATA_STATUS,
    step_time: stepTimeMs,
    context_id: contextId,
    ...(flushId === undefined ? {} : { flush_id: flushId }),
  };
}

export interface TimedUnits {
  units: string[];
  start: number[];
  end: number[];
}

export function wordTimestampsEvent(
  contextId: string,
  words: TimedUnits,
  flushId: number | undefined,
): Record<string, unknown> {
  return {
    type: 'timestamps',
    done: false,
    status_code: DATA_STATUS,
    context_id: contextId,
    word_timestamps: { words: words.units, start: words.start, end: words.end },
    ...(flushId === undefined ? {} : { flush_id: flushId }),
  };
}

export function phonemeTimestampsEvent(
  contextId: string,
  phonemes: TimedUnits,
  flushId: number | undefined,
): Record<string, unknown> {
  return {
    type: 'phoneme_timestamps',
    done: false,
    status_code: DATA_STATUS,
    context_id: contextId,
    phoneme_timestamps: { phonemes: phonemes.units, start: phonemes.start, end: phonemes.end },
    ...(flushId === undefined ? {} : { flush_id: flushId }),
  };
}

export function flushDoneEvent(contextId: string, flushId: number): Record<string, unknown> {
  return {
    type: 'flush_done',
    done: false,
    flush_done: true,
    flush_id: flushId,
    status_code: DATA_STATUS,
    context_id: contextId,
  };
}

export function doneEvent(contextId: string): Record<string, unknown> {
  return { type: 'done', done: true, status_code: DATA_STATUS, context_id: contextId };
}
